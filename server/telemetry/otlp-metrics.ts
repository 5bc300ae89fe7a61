import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { AgentMetrics } from "@/server/agent/agent-metrics";
import type { OtlpConfig } from "@/server/env/config";

// The agent's tool and model metrics as OpenTelemetry instruments, pushed over OTLP/HTTP (JSON)
// to the collector the admin configured (OTEL_EXPORTER_OTLP_ENDPOINT): counts, durations, result
// sizes, errors, tokens by kind (`cached` are the provider's prompt-cache hits).

export type OtlpMetrics = AgentMetrics & {
  /** Sends what is recorded now (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
};

export function otlpMetrics(config: OtlpConfig): OtlpMetrics {
  const exporter = new OTLPMetricExporter({ url: config.url, headers: config.headers });
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: config.intervalMs });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    readers: [reader],
  });
  const meter = provider.getMeter("tandem.agent");
  const toolCalls = meter.createCounter("tandem.tool.calls", { description: "Tool calls, by tool and outcome" });
  const toolDuration = meter.createHistogram("tandem.tool.duration", { unit: "ms", description: "Tool call time" });
  const toolResult = meter.createHistogram("tandem.tool.result_size", {
    unit: "By",
    description: "Bytes of a tool result the model received",
  });
  const steps = meter.createCounter("tandem.model.steps", { description: "Model steps, by model and outcome" });
  const stepDuration = meter.createHistogram("tandem.model.duration", { unit: "ms", description: "Model step time" });
  const tokens = meter.createCounter("tandem.model.tokens", {
    description: "Tokens by model and type (input, output, cached: prompt-cache hits, reasoning)",
  });
  return {
    toolCall(m) {
      const attributes = {
        tool: m.tool,
        model: m.model,
        ok: m.ok,
        ...(m.errorCode ? { error_code: m.errorCode } : {}),
        truncated: m.truncated,
      };
      toolCalls.add(1, attributes);
      toolDuration.record(m.durationMs, { tool: m.tool, ok: m.ok });
      toolResult.record(m.resultBytes, { tool: m.tool });
    },
    modelStep(m) {
      steps.add(1, { model: m.model, ok: m.ok });
      stepDuration.record(m.durationMs, { model: m.model, ok: m.ok });
      tokens.add(m.usage.inputTokens, { model: m.model, type: "input" });
      tokens.add(m.usage.outputTokens, { model: m.model, type: "output" });
      tokens.add(m.usage.cachedInputTokens, { model: m.model, type: "cached" });
      tokens.add(m.usage.reasoningTokens, { model: m.model, type: "reasoning" });
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
