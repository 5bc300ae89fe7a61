import type { TokenUsage } from "@/lib/session-events";

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** Tokens in and out, and the cost when the model has prices set. */
export function UsageCounter({ usage, costUsd }: { usage: TokenUsage; costUsd: number }) {
  const title = `Input ${usage.inputTokens.toLocaleString()} tokens (${usage.cachedInputTokens.toLocaleString()} cached), output ${usage.outputTokens.toLocaleString()} (${usage.reasoningTokens.toLocaleString()} reasoning)`;
  return (
    <span className="usage" title={title} data-testid="usage-counter">
      ↑{compact.format(usage.inputTokens)} ↓{compact.format(usage.outputTokens)}
      {costUsd > 0 && <> · ${costUsd < 0.01 ? costUsd.toFixed(4) : costUsd.toFixed(2)}</>}
    </span>
  );
}
