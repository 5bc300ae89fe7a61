import type { AgentStore } from "@/server/agent/agent-store";
import type { SessionStatus } from "@/lib/session-events";
import type { EventLog } from "@/server/agent/events";
import type { TurnLeases } from "@/server/agent/turn-leases";
import { turnState } from "@/server/agent/turn-state";

// What the runtime does as the server starts, for the sessions the last process left behind:
// turns a crash cut off, and messages no turn started for.

export type StartUpHost = {
  store: AgentStore;
  log: EventLog;
  leases: Pick<TurnLeases, "orphaned">;
  setStatus(sessionId: string, status: SessionStatus, reason?: string): Promise<void>;
  isRunning(sessionId: string): boolean;
  hasUnansweredMessage(sessionId: string): Promise<boolean>;
  start(sessionId: string, userId: string): void;
};

/** Turns cut off by a crash become `interrupted`, with an event saying so. */
export async function interruptCutTurns(host: StartUpHost): Promise<string[]> {
  const { store, log } = host;
  const running = await store.sessions.listByStatus(["running"]);
  const orphaned = new Set(await host.leases.orphaned(running.map((s) => s.id)));
  const cut = running.filter((s) => orphaned.has(s.id));
  for (const session of cut) {
    const state = turnState(await store.events.list(session.id));
    if (state.openTurn) {
      await log.append(session.id, "turn_finished", {
        turnId: state.openTurn.turnId,
        reason: "interrupted",
        message: "Interrupted: the server stopped during this turn. Resume to continue.",
        steps: state.steps,
      });
    }
    await host.setStatus(session.id, "interrupted", "The server restarted during this turn.");
  }
  return cut.map((s) => s.id);
}

/**
 * Once the tools are attached: answers the messages left without an answer. A message sent while
 * the server shut down is stored, but its turn does not start (dispose waits for the turns it
 * has, and starts none); nor does one stored just before a crash. Each turn works for the
 * message's author, as a turn started by the message would.
 */
export async function answerLeftMessages(host: StartUpHost): Promise<string[]> {
  const answering: string[] = [];
  for (const left of await host.store.sessions.listIdleWithUnansweredMessage()) {
    if (host.isRunning(left.id) || !(await host.hasUnansweredMessage(left.id))) continue;
    host.start(left.id, left.userId);
    answering.push(left.id);
  }
  return answering;
}
