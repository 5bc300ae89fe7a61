import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { embedText, startEmbeddingsServer } from "@/server/test/embeddings-server";
import type { Workspace } from "@/server/workspace";
import { createKnowledgeIndex, type KnowledgeIndex } from "./knowledge-index";

// Semantic knowledge search end to end: the real embedding code (AI SDK, OpenAI-compatible
// provider) against a local deterministic embeddings server, the scripted model calling
// search_knowledge_base, and a full-text-only index on the same database to compare with.

const MODEL = "openai-compatible:trigrams";
const CORPUS: Record<string, string> = {
  "docs/throttling.md": "# Throttling\n\nThe ratelimiter throttles each client to a hundred calls per minute.\n",
  // The decoy: it says "rate" and "limit", in passing, about something else.
  "docs/finance.md":
    "# Currency\n\nThe exchange rate comes from the central bank feed.\nInvoices are issued in euros and settled within thirty days.\n" +
    "The treasury team reconciles the ledger after the nightly job.\nRefunds go back to the original payment method.\nA daily limit applies to outgoing transfers.\n",
  "docs/validation.md": "# Forms\n\nClientside validation runs in the browser before submit.\n",
  "docs/storage.md": "# Storage\n\nBlobs are kept in the object store under their digest.\n",
  "docs/errors.md":
    "# Errors\n\nStorage, billing and mail failures are listed here with their codes.\nA request over quota fails with ERR_QUOTA_7731.\n" +
    "A missing blob answers 404 from the object store.\nA bounced mail is retried three times, then reported to the sender.\n",
};

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;
let workspace: Workspace;
let knowledge: KnowledgeIndex;
let fullText: KnowledgeIndex;

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  h = await createAgentHarness({
    extensions: { embedding: { model: MODEL, baseURL: embeddings.url, apiKey: undefined } },
  });
  workspace = await h.env.services.files.open(h.project.id);
  for (const [rel, content] of Object.entries(CORPUS)) await write(rel, content);
  knowledge = h.env.services.extensions!.knowledge;
  fullText = createKnowledgeIndex({ db: h.env.services.db });
  await knowledge.settled(h.project.id, workspace);
}, 60_000);
afterAll(async () => {
  await fullText.dispose();
  await h.dispose();
  await embeddings.close();
});

async function write(rel: string, content: string) {
  await fs.mkdir(path.dirname(path.join(workspace.root, rel)), { recursive: true });
  await fs.writeFile(path.join(workspace.root, rel), content);
}

/** The scripted model calls search_knowledge_base once; returns the tool result the model read. */
async function searchAsModel(args: Record<string, unknown>) {
  const session = await h.newSession({
    replies: [
      { toolCalls: [{ id: "k1", name: "search_knowledge_base", arguments: args }] },
      { match: "", text: "Done." },
    ],
  });
  const result = only(await h.send(session.id, "look it up"), "tool_result")[0]!.payload;
  expect(result).toMatchObject({ toolName: "search_knowledge_base", ok: true });
  return result.llm as string;
}

const pathsIn = (llm: string) => [...llm.matchAll(/^## ([^:]+):/gm)].map((m) => m[1]);

describe("semantic knowledge search", () => {
  it("finds the passage full-text search misses", async () => {
    const lexical = await fullText.search(h.project.id, workspace, "rate limiter", 8);
    expect(lexical.hits.map((hit) => hit.path)).not.toContain("docs/throttling.md");
    const llm = await searchAsModel({ query: "rate limiter" });
    expect(pathsIn(llm)).toContain("docs/throttling.md");
    expect(llm).toContain("The ratelimiter throttles each client");
    expect(llm).not.toContain("Note:");
  });

  it("ranks a paraphrase's passage above a lexical decoy", async () => {
    const lexical = await fullText.search(h.project.id, workspace, "rate limiter per client", 8);
    expect(lexical.hits[0]!.path).toBe("docs/finance.md");
    const llm = await searchAsModel({ query: "rate limiter per client" });
    const paths = pathsIn(llm);
    expect(paths[0]).toBe("docs/throttling.md");
    expect(paths.indexOf("docs/finance.md")).toBeGreaterThan(0);
  });

  it("keeps exact keyword hits that the embeddings rank low", async () => {
    const query = "client calls per minute ERR_QUOTA_7731";
    const similarity = (text: string) => embedText(text).reduce((sum, v, i) => sum + v * embedText(query)[i]!, 0);
    expect(similarity(CORPUS["docs/throttling.md"]!)).toBeGreaterThan(similarity(CORPUS["docs/errors.md"]!));
    const paths = pathsIn(await searchAsModel({ query }));
    expect(paths.slice(0, 2)).toContain("docs/errors.md");
  });

  it("embeds only the passages that changed", async () => {
    const before = embeddings.embedded.length;
    await write("docs/storage.md", "# Storage\n\nBlobs are kept in the object store under their sha256 digest.\n");
    await knowledge.settled(h.project.id, workspace);
    expect(embeddings.embedded.slice(before)).toEqual([
      "# Storage\n\nBlobs are kept in the object store under their sha256 digest.",
    ]);
    expect(await knowledge.semanticStatus(h.project.id)).toMatchObject({
      model: MODEL,
      backend: "in-process",
      embedded: 5,
      pending: 0,
    });
  });

  it("falls back to full-text ranking when the embeddings endpoint fails, and says why", async () => {
    embeddings.fail(500);
    try {
      await write("docs/mail.md", "# Mail\n\nOutgoing mail leaves through the relay.\n");
      await knowledge.settled(h.project.id, workspace);
      const status = await knowledge.semanticStatus(h.project.id);
      expect(status).toMatchObject({ pending: 1 });
      expect(status?.error).toContain("embeddings backend is down");
      // The project's settings page shows the same reason.
      expect((await h.caller.extensions.settings({ projectId: h.project.id })).knowledge).toMatchObject({
        model: MODEL,
        pending: 1,
        error: status!.error,
      });

      const llm = await searchAsModel({ query: "exchange rate" });
      expect(pathsIn(llm)[0]).toBe("docs/finance.md");
      expect(llm).toMatch(
        /Note: Semantic ranking \(openai-compatible:trigrams\) is unavailable: .*embeddings backend is down.*full-text search alone/,
      );
    } finally {
      embeddings.fail(null);
    }
    await knowledge.settled(h.project.id, workspace);
    expect(await knowledge.semanticStatus(h.project.id)).toMatchObject({ pending: 0 });
    expect((await knowledge.semanticStatus(h.project.id))?.error).toBeUndefined();
  });

  it("answers from the top passages with citations of path and lines", async () => {
    const session = await h.newSession({
      replies: [
        {
          toolCalls: [
            {
              id: "a1",
              name: "search_knowledge_base",
              arguments: { query: "How is each client rate limited?", answer: true },
            },
          ],
        },
        {
          match: "Answer this question about the project",
          text: "Each client may make a hundred calls per minute [docs/throttling.md:1-3]; see also [docs/made-up.md:1-9].",
        },
        { match: "", text: "Done." },
      ],
    });
    const result = only(await h.send(session.id, "how are clients limited?"), "tool_result")[0]!.payload;
    expect(result).toMatchObject({ toolName: "search_knowledge_base", ok: true });
    expect(result.llm).toContain("Each client may make a hundred calls per minute [docs/throttling.md:1-3]");
    expect(result.llm).toMatch(/Sources:\n- docs\/throttling\.md:1-3$/m);
    expect(result.llm).not.toMatch(/- docs\/made-up\.md/);
    // The model wrote it from the passages it was given, labelled by path and lines.
    const asked = h.model.requests.find((r) =>
      JSON.stringify(r.messages).includes("Answer this question about the project"),
    )!;
    expect(JSON.stringify(asked.messages)).toContain(
      "[docs/throttling.md:1-3]\\n# Throttling\\n\\nThe ratelimiter throttles each client",
    );
  });
});
