// What a run cost when the model has no price in Tandem's settings (an eval's database is a
// fresh one): the providers' published list prices of the models Tandem suggests, in USD per
// million tokens. `--price` on the command line overrides them, for a gateway's own prices or a
// model not listed here; a model with neither has no cost (null), never a made-up one.

export type Prices = { input: number; output: number; cachedInput: number };

/** List prices as the providers published them in 2025 (standard tier, prompts under 200k tokens). */
export const LIST_PRICES: Record<string, Prices> = {
  "anthropic:claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic:claude-opus-4-1": { input: 15, output: 75, cachedInput: 1.5 },
  "anthropic:claude-haiku-4-5": { input: 1, output: 5, cachedInput: 0.1 },
  "openai:gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "openai:gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "openai:gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "google:gemini-2.5-pro": { input: 1.25, output: 10, cachedInput: 0.31 },
  "google:gemini-2.5-flash": { input: 0.3, output: 2.5, cachedInput: 0.075 },
};

/** `--price 3,15` or `--price 3,15,0.3` (input, output, cached input; USD per million tokens). */
export function parsePrice(text: string): Prices {
  const parts = text.split(",").map((p) => Number(p.trim()));
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => !Number.isFinite(p) || p < 0))
    throw new Error(
      `--price takes input,output[,cached input] in USD per million tokens, e.g. 3,15,0.3 (got ${text}).`,
    );
  return { input: parts[0]!, output: parts[1]!, cachedInput: parts[2] ?? parts[0]! };
}

export function costUsd(
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
  prices: Prices,
): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  return (
    (uncached * prices.input + usage.cachedInputTokens * prices.cachedInput + usage.outputTokens * prices.output) / 1e6
  );
}
