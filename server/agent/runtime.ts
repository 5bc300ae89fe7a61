import { createFixedCosts } from "@/server/agent/fixed-costs";
import type { SessionStatus } from "@/lib/session-events";
import type { Delegator } from "@/server/tools/delegate";
import { createEventLog } from "@/server/agent/events";
import { createOwnTools } from "@/server/agent/own-tools";
import { AgentRuntimeError } from "@/server/agent/runtime-error";
import type { AgentRuntimeOptions } from "@/server/agent/runtime-options";
import { createSessionCommands, mustFindSession } from "@/server/agent/session-commands";
import type { SessionResources } from "@/server/agent/session-tools";
import { createSubagentHost } from "@/server/agent/subagent-host";
import { runSubagents } from "@/server/agent/subagents";
import { createTurnScheduler } from "@/server/agent/turn-scheduler";
import type { TurnSetup } from "@/server/agent/turn-setup";

// The agent runtime: sessions, turns, approvals and the live stream, for any caller (the tRPC
// routers, a sub-agent, a test). It knows nothing of HTTP; errors a caller can act on are
// AgentRuntimeError with a code the router maps to a TRPCError. Built here from two parts: the
// scheduling of turns (turn-scheduler.ts) and the commands people give a session
// (session-commands.ts), over one event log and the store port (agent-store.ts).

export { AgentRuntimeError };
export type { AgentRuntimeOptions };
export type { Person } from "@/server/agent/session-commands";

export type AgentRuntime = ReturnType<typeof createAgentRuntime>;

export function createAgentRuntime(o: AgentRuntimeOptions) {
  const log = createEventLog(o.store, o.bus, async (sessionId) => {
    const session = o.secrets ? await o.store.sessions.find(sessionId) : null;
    if (!session || !o.secrets) return null;
    return (await o.secrets({ projectId: session.projectId, personId: session.authorId })).redactor;
  });
  const delegator: Delegator = (input) => runSubagents(subagentHost, input);
  const ownTools = createOwnTools(o.store, delegator, o.extensions);
  const fixedCosts = createFixedCosts();
  const setup: TurnSetup = {
    log,
    fixedCosts,
    options: o,
    ownTools,
    delegator,
    resources: new Map<string, SessionResources>(),
    async setStatus(sessionId: string, status: SessionStatus, reason?: string) {
      if (await o.store.sessions.setStatus(sessionId, status))
        await log.append(sessionId, "status", { status, reason });
    },
  };
  const turns = createTurnScheduler(setup);
  const subagentHost = createSubagentHost({
    store: o.store,
    log,
    bus: o.bus,
    baseTools: o.baseTools,
    ownTools,
    openWorkspace: o.openWorkspace,
    mustFind: (sessionId) => mustFindSession(setup, sessionId),
    isRunning: turns.isRunning,
    start: turns.start,
    waitForTurnEnd: turns.waitForTurnEnd,
  });

  return {
    log,
    stats: log.stats,
    /** What each model's requests carry before the conversation, as last measured here (fixed-costs.ts). */
    fixedCosts: fixedCosts.list,
    ...createSessionCommands(setup, turns),
    isRunning: turns.isRunning,
    idle: turns.idle,
    /** Stops the session's turn and its shell's jobs (before its worktree is removed); the session stays. */
    release: turns.release,
    recover: turns.recover,
    answerLeftMessages: turns.answerLeftMessages,
    dispose: turns.dispose,
  };
}
