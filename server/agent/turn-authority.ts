import { randomUUID } from "node:crypto";
import type { AgentStore } from "@/server/agent/agent-store";
import { closeCalls } from "@/server/agent/call-results";
import type { EventLog } from "@/server/agent/events";
import { turnState } from "@/server/agent/turn-state";

// A turn is server-side work done for a person, asked for with a credential: an API token's turn
// must not outlive the token, or a leaked token would keep working after its owner revoked it.
// So a turn runs only while its person is enabled and in the project's team and, when an API token
// asked for it (the session's last message or resume came with one), while that token lasts. It is
// judged when the turn starts or continues (a message, an answered approval, a resume, a restart
// or a take-over) and followed while it runs: the end of any of these stops it as Stop does.
// A browser login is not the turn's authority: signing out of one tab (or the login's expiry)
// leaves the person's agent working; disabling them or taking them out of the team stops it.
// The port is bound by server/services/turn-authority.ts to the tokens, the team and the
// access-change bus (every instance's revocations, and each token's expiry).

/** The abort reason of a turn whose authority ended: its end says why, as a Stop's end would. */
export class TurnRevoked extends Error {}

export type TurnAuthority = {
  /** Why the session's turn may not run for `userId` now (a sentence for its log), or null while it may. */
  refusal(turn: { sessionId: string; userId: string }): Promise<string | null>;
  /**
   * Until the returned stop: calls `refused` once, with why, when the turn may no longer run,
   * whichever instance the change was made on.
   */
  follow(turn: { sessionId: string; userId: string }, refused: (reason: string) => void): () => void;
  /**
   * The session's turn runs under another API token from now on (a message sent with it while the
   * turn runs, here or on another instance): whoever follows it reads it again.
   */
  rebound(sessionId: string): void;
};

/**
 * A turn refused before it ran: ended as Stop ends it, its calls not run closed as cancelled, the
 * reason in its end, so the message it was to answer is answered (and not picked up again).
 */
export async function endRefusedTurn(
  deps: {
    store: AgentStore;
    log: EventLog;
    setStatus(sessionId: string, status: "idle", reason?: string): Promise<void>;
  },
  sessionId: string,
  reason: string,
): Promise<{ reason: "cancelled"; text: string; finishedSeq: number }> {
  const { store, log } = deps;
  const state = turnState(await store.events.list(sessionId));
  let turnId = state.openTurn?.turnId;
  if (!turnId) {
    turnId = randomUUID();
    const model = (await store.sessions.find(sessionId))?.model ?? "";
    await log.append(sessionId, "turn_started", { turnId, model, resumed: false });
  }
  await closeCalls(log, sessionId, turnId, state.pendingCalls, "the turn was cancelled.", state.startedCalls);
  const finished = await log.append(sessionId, "turn_finished", {
    turnId,
    reason: "cancelled",
    message: reason,
    steps: state.steps,
  });
  await deps.setStatus(sessionId, "idle", reason);
  return { reason: "cancelled", text: "", finishedSeq: finished.seq };
}
