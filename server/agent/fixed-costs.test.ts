import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setModelSetting } from "@/server/db/repositories/agent-settings";
import { createAgentHarness } from "@/server/test/agent-harness";

// The admin's model settings are told what every request of a model carries before the
// conversation, measured by the real loop's steps, and warned when it passes 15% of the window.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
}, 60_000);
afterAll(() => h?.dispose());

const window = (model: string, contextWindow: number) =>
  setModelSetting(h.env.services.db, {
    model,
    inputPerMTok: null,
    outputPerMTok: null,
    cachedInputPerMTok: null,
    contextWindow,
  });

describe("the fixed cost per request", () => {
  it("is measured by each step and warned of past 15% of the model's window", async () => {
    const session = await h.newSession({
      replies: [
        { match: "hello", text: "Done." },
        { match: "again", text: "Done again." },
      ],
    });
    await window(session.model, 12_000);
    await h.send(session.id, "hello");
    await h.waitFor(async () => (await h.status(session.id)) === "idle");
    const small = await h.caller.model.fixedCosts();
    const measured = small.models.find((m) => m.model === session.model)!;
    // What the scripted model server received: instructions plus tool definitions.
    const request = h.model.requests.at(-1)!;
    expect(measured.chars).toBeGreaterThan(request.toolsChars);
    expect(measured.contextWindow).toBe(12_000);
    expect(measured.share).toBeGreaterThan(small.warnShare);

    // The same model given a large window: the same tools are a small share of it.
    await window(session.model, 1_000_000);
    await h.send(session.id, "again");
    await h.waitFor(async () => (await h.status(session.id)) === "idle");
    const large = (await h.caller.model.fixedCosts()).models.find((m) => m.model === session.model)!;
    expect(large.contextWindow).toBe(1_000_000);
    expect(large.share).toBeLessThan(small.warnShare);
  }, 60_000);
});
