import type { AgentStore } from "@/server/agent/agent-store";
import type { SessionBus } from "@/server/bus/session-bus";
import type { FetchPolicy, Tool, WebSearchBackend } from "@/server/tools/define-tool";
import type { Workspace } from "@/server/workspace";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { LanguageServers } from "@/server/language/language-servers";
import type { ModelRegistry } from "@/server/agent/providers";
import type { TurnJobs } from "@/server/cluster/turn-jobs";
import type { AgentSecrets, ShellFactory } from "@/server/agent/session-tools";
import type { AgentExtensions } from "@/server/agent/extensions";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { LoopClock } from "@/server/agent/loop-load";
import type { Browsers } from "@/server/tools/agent-browser/session-browsers";
import type { EnvironmentFacts } from "@/lib/toolchains";
import type { LiveEditNotifier } from "@/server/tools/live-edits";
import type { AgentMetrics } from "@/server/agent/agent-metrics";
import type { TurnSpending } from "@/server/agent/turn-spending";
import type { TurnAuthority } from "@/server/agent/turn-authority";

// What the agent runtime (runtime.ts) is built from; a turn's setup (turn-setup.ts) reads it too.

export type AgentRuntimeOptions = {
  /** Where sessions, their logs and approvals are kept (agent-store.ts), bound to the database by compose-services.ts. */
  store: AgentStore;
  bus: SessionBus;
  models: ModelRegistry;
  /** A project's tree (lib/trees.ts): its main tree without `treeId`, else the worktree of that session. */
  openWorkspace(projectId: string, treeId?: string | null): Promise<Workspace>;
  /** Where turns snapshot the workspace before their first change; without it, no checkpoints. */
  checkpoints?: CheckpointStores;
  /** The registry's base tools; defaults to the core tools. */
  baseTools?: readonly Tool[];
  shell?: ShellFactory;
  /**
   * The secrets a session's commands get and the redactor of their values (server/services/secrets.ts);
   * `personId` is the session's author while nobody else wrote into it, else null. Without it, none.
   */
  secrets?(request: { projectId: string; personId: string | null }): Promise<AgentSecrets>;
  sandbox: Sandbox;
  fetchPolicy?: FetchPolicy;
  /** A project's toolchains and last setup run, for the environment block (server/services/project-environment.ts). */
  environment?(projectId: string): Promise<EnvironmentFacts>;
  /** The web search service from the environment; an admin's setting wins (server/agent/web-search-backend.ts). */
  webSearch?: WebSearchBackend;
  now?: () => Date;
  maxRetries?: number;
  /** Language servers: the agent's diagnostics, symbols and navigation tools, and new errors after edits. */
  language?: LanguageServers;
  /** The agent's browser (one Chromium, a context per session); without it the browser tool is not offered. */
  browsers?: Browsers;
  /** Budgets: each model step is let through or refused (turn-spending.ts); absent: no budgets, no usage ledger. */
  spending?: TurnSpending;
  /** Where the agent's writes to the project's main tree go live for people who have the file open. */
  liveEdits?: LiveEditNotifier;
  /** MCP and discovered tools, knowledge search, the scheduler, mail (server/agent/extensions.ts). */
  extensions?: AgentExtensions;
  /**
   * Turns as leased jobs in Postgres (server/cluster/turn-jobs.ts): one instance runs a session's
   * turn, and another continues it when that instance dies. Without it, turns live in this process alone.
   */
  turnJobs?: TurnJobs;
  /** How many turns may be starting at once, and how long a slow start holds its place (turn-admission.ts). */
  turnStarts?: { atOnce: number; holdMs: number };
  /** The event loops whose load holds turn starts back (loop-load.ts); this thread's when not given. */
  loops?: LoopClock[];
  /**
   * Whether a turn's person and the API token it was asked with still may run it, judged as it
   * starts or continues and followed while it runs (turn-authority.ts). Without it, turns run on.
   */
  authority?: TurnAuthority;
  /** Where each tool call's and model step's metrics go (OTLP when configured: server/telemetry). */
  metrics?: AgentMetrics;
};
