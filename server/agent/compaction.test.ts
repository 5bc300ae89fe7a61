import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setModelSetting } from "@/server/db/repositories/agent-settings";
import { SUMMARY_PREFIX } from "@/lib/model-transcript";
import { createAgentHarness, only } from "./test-harness";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("compaction", () => {
  it("summarises older turns when the context nears a small window; the log keeps everything", async () => {
    const long = (word: string) => `${word} `.repeat(1500); // ~2,000 tokens by the 4-characters estimate
    await setModelSetting(h.env.services.db, { model: "openai-compatible:scripted", inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: null, contextWindow: 6000 });
    const session = await h.newSession({
      replies: [
        { match: "first question", tokens: [long("alpha")] },
        { match: "second question", tokens: [long("beta")] },
        { match: "Summarise the conversation", text: "The user asked two questions; the answers were long lists of alpha and beta." },
        { match: "third question", text: "Third answer, with a compact context." },
      ],
    });
    await h.send(session.id, "first question");
    await h.send(session.id, "second question");
    expect(only(await h.events(session.id), "compaction")).toHaveLength(0);
    const events = await h.send(session.id, "third question");

    const compaction = only(events, "compaction")[0]!;
    expect(compaction.payload.summary).toMatch(/two questions/);
    expect(compaction.payload.contextWindow).toBe(6000);
    const third = h.model.requests.at(-1)!;
    expect(third.messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(String(third.messages[1]!.content)).toBe(`${SUMMARY_PREFIX}The user asked two questions; the answers were long lists of alpha and beta.`);
    expect(JSON.stringify(third.messages)).not.toContain("alpha alpha");
    // Nothing is lost from the log.
    expect(only(events, "assistant_message").map((e) => e.payload.text.slice(0, 5))).toEqual(["alpha", "beta ", "Third"]);
    // Usage and cost from the admin's price table.
    const usage = only(events, "usage").at(-1)!.payload;
    expect(usage.sessionCostUsd).toBeGreaterThan(0);
  });
});
