import type { AgentMetrics } from "@/server/agent/agent-metrics";
import type { LanguageModel } from "ai";
import type { SessionEvent, SessionStatus } from "@/lib/session-events";
import type { CallGrant, ToolContext } from "@/server/tools/define-tool";
import type { ToolSet } from "@/server/tools/registry";
import type { AgentStore } from "@/server/agent/agent-store";
import type { EventLog } from "@/server/agent/events";
import type { FolderInstructions } from "@/server/agent/folder-instructions";
import type { Policy } from "@/server/agent/policy";
import type { ModelFacts } from "@/server/agent/usage";
import type { TurnHooks } from "@/server/agent/hooks";
import type { StepSpending } from "@/server/agent/turn-spending";

// Everything one turn works with, built once when it starts or continues (turn-setup.ts) and read
// as it is by the loop (run.ts), the tool calls (tool-calls.ts), the checkpoint (turn-checkpoint.ts),
// a person's direct tool run (direct-run.ts) and @ mentions (mentions.ts). A tool gets its own
// ToolContext from it, one per call (`toolContext`).

export type TurnContext = {
  store: AgentStore;
  log: EventLog;
  sessionId: string;
  /** The session's log from seq 1 as read when the turn was prepared; the run reads only what follows. */
  events: SessionEvent[];
  modelId: string;
  /** Throws ModelConfigError when the model cannot be used; reported as an error event. */
  model: () => LanguageModel;
  endpoint: string;
  instructions: string;
  tools: ToolSet;
  /** What the model is shown this step when some schemas are deferred (see deferred-tools.ts); defaults to `tools`. */
  modelTools?(events: readonly SessionEvent[]): ToolSet;
  policy: Policy;
  stepLimit: number;
  /** A sub-agent: its last step allowed is made without tools, asking for its final report. */
  reportAtLimit?: boolean;
  /** What the prompt carried from the project (memories, instruction files), recorded on turn_started. */
  contextUsed?: { memories: number; files: string[] };
  /** The model loses earlier tool output (pruned or compacted): what tracks "already shown" must forget it. */
  onContextCut?(): void;
  /** What this step's request carries before the conversation: instructions and tool definitions, in characters. */
  onFixedCost?(chars: number): void;
  /** Instructions of a sub-folder a call works in, the first time (see folder-instructions.ts). */
  folderInstructions?: FolderInstructions;
  /** The session's running background jobs, one line each (kept in a compaction summary). */
  backgroundJobs?(): string[];
  loopGuardRepeats: number;
  facts: ModelFacts;
  /** Budgets, asked before each model step (turn-spending.ts); absent: no budgets. */
  spending?: StepSpending;
  resumed: boolean;
  signal: AbortSignal;
  /** The context of one tool call; `grant`: what was vetted for the call and who approved it (the shell's command gate reads it). */
  toolContext(toolCallId: string, grant?: CallGrant): ToolContext;
  /** The project's approved hooks around each call (hooks.ts); absent when the server runs none. */
  hooks?: TurnHooks;
  /** Snapshots the workspace (the turn's checkpoint); absent when the server keeps no checkpoints. */
  snapshot?(label: string): Promise<{ id: string; filesChanged: number }>;
  setStatus(status: SessionStatus, reason?: string): Promise<void>;
  maxRetries?: number;
  /** Each tool call's and model step's metrics, for the exporter (agent-metrics.ts). */
  metrics?: AgentMetrics;
};
