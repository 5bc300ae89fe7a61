import type { ToolCallMetrics } from "@/server/tools/registry";
import type { TokenUsage } from "@/lib/session-events";

// What the runtime reports of its work as it happens: each tool call and each model step, for an
// exporter (server/telemetry/otlp-metrics.ts) to count. Durable figures come from the session log
// (server/db/repositories/telemetry.ts); these are for a metrics backend, and lost on a crash.

export type ModelStepMetrics = {
  model: string;
  durationMs: number;
  usage: TokenUsage;
  ok: boolean;
};

export interface AgentMetrics {
  toolCall(metrics: ToolCallMetrics & { model: string }): void;
  modelStep(metrics: ModelStepMetrics): void;
}
