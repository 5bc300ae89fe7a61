import { z } from "zod";
import { defineTool } from "./define-tool";
import { type MemoryStore, storeAgentMemory } from "./memory";
import { ToolFailure, ok } from "./result";

// remember_preference: a preference the person stated ("I prefer …") kept as one of their own
// memories, with their consent: every call asks, whatever the mode, and only the person whose
// memory it becomes can agree (an approval by anyone else stores nothing).

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60) || "preference";

export function rememberPreferenceTool(store: MemoryStore) {
  return defineTool({
    name: "remember_preference",
    kind: "memory",
    description:
      'Offer to remember a preference the user stated ("I prefer …") as their own memory across projects. The user is asked to agree; nothing is kept otherwise.',
    input: z.object({
      preference: z.string().min(3).max(500).describe("The preference in the user's words, e.g. `Tabs over spaces`."),
      topic: z.string().min(1).max(60).optional().describe("A short key, e.g. `indentation`."),
    }),
    approval: "always",
    mainAgentOnly: true,
    // Sent by name only: the prompt names it when the latest message states a preference.
    onDemand: "always",
    describe: (i) => `Remember your preference: ${i.preference.slice(0, 80)}`,
    async execute(i, ctx) {
      if (ctx.grant?.approvedById !== ctx.userId)
        throw new ToolFailure(
          "DENIED",
          "Only the person whose preference it is can agree to keep it; nothing was stored. Ask them in their own session.",
        );
      const key = `preference/${slug(i.topic ?? i.preference)}`;
      const row = await storeAgentMemory(store, "user", { key, value: i.preference.trim() }, ctx);
      return ok(`Remembered the user's preference as "${row.key}": ${row.value}`);
    },
  });
}

/** Whether a message states a preference worth offering to remember. */
export function statesPreference(message: string): boolean {
  return /\b(i (would |'d )?prefer|i(?: always)? like to|i'd rather|i would rather|please always|i never want)\b/i.test(
    message,
  );
}
