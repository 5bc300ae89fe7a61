// What every request of a model carries before the conversation (the instructions and the tool
// definitions), as the last step on this instance measured it. A small model pays it on every
// step: past FIXED_COST_WARN_SHARE of the window, the admin's model settings warn (issue 39).

/** The share of a model's window past which its fixed cost is called out. */
export const FIXED_COST_WARN_SHARE = 0.15;

export type FixedCost = {
  model: string;
  /** Characters of instructions and tool definitions, as the provider receives them. */
  chars: number;
  /** Estimated at 4 characters a token, as compaction estimates. */
  tokens: number;
  contextWindow: number;
  share: number;
  measuredAt: Date;
};

export type FixedCosts = {
  record(model: string, chars: number, contextWindow: number): void;
  list(): FixedCost[];
};

export function createFixedCosts(now = () => new Date()): FixedCosts {
  const last = new Map<string, FixedCost>();
  return {
    record(model, chars, contextWindow) {
      const tokens = Math.ceil(chars / 4);
      last.set(model, { model, chars, tokens, contextWindow, share: tokens / contextWindow, measuredAt: now() });
    },
    list: () => [...last.values()].sort((a, b) => b.share - a.share),
  };
}
