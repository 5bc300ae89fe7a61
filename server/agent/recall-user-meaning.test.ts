import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchMemories, storeMemory } from "@/server/db/repositories/memories";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { startEmbeddingsServer } from "@/server/test/embeddings-server";

// memory search of the user's memories through a turn with an embedding model configured (a local deterministic
// embeddings server): a memory that shares no word with the topic is found by meaning, beside
// what full-text search finds.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  h = await createAgentHarness({
    extensions: { embedding: { model: "openai-compatible:trigrams", baseURL: embeddings.url, apiKey: undefined } },
  });
  const owner = { scope: "user" as const, userId: h.user.id };
  await storeMemory(h.env.services.db, owner, {
    key: "editor",
    value: "Tabs over spaces, always.",
    createdById: h.user.id,
  });
  await storeMemory(h.env.services.db, owner, {
    key: "deploys",
    value: "Staging before production.",
    createdById: h.user.id,
  });
}, 60_000);
afterAll(async () => {
  await h?.dispose();
  await embeddings?.close();
});

describe("memory search with embeddings", () => {
  it("finds a preference by meaning that its words do not match", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "indent",
          toolCalls: [{ name: "memory", arguments: { action: "search", scope: "user", query: "whitespace" } }],
        },
        { match: "", text: "Tabs it is." },
      ],
    });
    const events = await h.send(session.id, "How should I indent?");
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "memory", ok: true });
    expect(result.llm.split("\n")[0]).toMatch(/^- \[[0-9.]+\] editor: Tabs over spaces, always\.$/);
    // Full-text search alone finds nothing for that topic.
    const owners = [{ scope: "user" as const, userId: h.user.id }];
    expect(await searchMemories(h.env.services.db, owners, { query: "whitespace", limit: 10, threshold: 0 })).toEqual(
      [],
    );
  }, 60_000);
});
