import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_PREFIX } from "@/lib/model-transcript";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// What /model and /compact do behind the composer: the session's next turn goes to the model it
// was switched to, and a compaction asked for between turns replaces the conversation with the
// model's summary in what the model reads next (the log keeps everything).

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("session commands", () => {
  it("/model: the next turn uses the new model", async () => {
    const session = await h.newSession({ replies: [{ text: "one" }, { text: "two" }] });
    await h.send(session.id, "first");
    expect(h.model.requests.at(-1)!.model).toBe("scripted");
    await h.caller.session.setModel({ sessionId: session.id, model: "openai-compatible:other-model" });
    await h.send(session.id, "second");
    expect(h.model.requests.at(-1)!.model).toBe("other-model");
    await expect(h.caller.session.setModel({ sessionId: session.id, model: "not a model" })).rejects.toThrow(
      "provider:model",
    );
  });

  it("/compact: summarises now; the next request starts from the summary", async () => {
    const session = await h.newSession({
      replies: [
        { match: "remember the number", text: "Noted: 42." },
        { match: "Summarise the conversation", text: "The user asked to remember 42." },
        { match: "what was it", text: "42." },
      ],
    });
    await h.send(session.id, "remember the number 42");
    await h.caller.session.compact({ sessionId: session.id });
    await expect(h.caller.session.compact({ sessionId: session.id })).rejects.toThrow("Nothing new to compact");
    const events = await h.send(session.id, "what was it?");
    // The model's summary, and the latest request word for word after it (compaction.ts).
    const summary = only(events, "compaction")[0]!.payload.summary;
    expect(summary).toMatch(/^The user asked to remember 42\.[\s\S]*remember the number 42/);
    const messages = h.model.requests.at(-1)!.messages;
    expect(messages.map((m) => m.content)).toContain(`${SUMMARY_PREFIX}${summary}`);
    expect(JSON.stringify(messages)).not.toContain("Noted: 42.");
  });

  it("/compact with a model that refuses: a message that says what to do, and the log unchanged", async () => {
    const session = await h.newSession({
      replies: [
        { match: "hello", text: "Hi." },
        { match: "Summarise the conversation", status: 401 },
      ],
    });
    const before = await h.send(session.id, "hello");
    const refused = await h.caller.session.compact({ sessionId: session.id }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: "BAD_GATEWAY",
      message: expect.stringMatching(
        /^Could not compact: openai-compatible refused the API key \(HTTP 401\)\. Check TANDEM_OPENAI_COMPATIBLE_API_KEY/,
      ),
    });
    expect(await h.events(session.id)).toEqual(before);
  });
});
