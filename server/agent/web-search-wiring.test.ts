import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// web_search as the agent and people meet it: not offered to the model until a search service is
// configured; once an admin sets SearXNG, Brave or Tavily (each a local fake of its API here:
// third-party APIs are the one counterpart tests fake), the model gets the tool, its call reaches
// that service with its key, and the model picker's info names the service.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let fake: Server;
let base = "";
const seen: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }> = [];

beforeAll(async () => {
  fake = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      if (req.url?.startsWith("/searx/search"))
        res.end(
          JSON.stringify({
            results: [{ title: "SearX hit", url: "https://a.example/searx", content: "from searxng" }],
          }),
        );
      else if (req.url?.startsWith("/brave"))
        res.end(
          JSON.stringify({
            web: { results: [{ title: "Brave hit", url: "https://a.example/brave", description: "from brave" }] },
          }),
        );
      else if (req.url?.startsWith("/tavily"))
        res.end(
          JSON.stringify({
            results: [{ title: "Tavily hit", url: "https://a.example/tavily", content: "from tavily" }],
          }),
        );
      else res.writeHead(404).end("{}");
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  h = await createAgentHarness({ coreTools: true });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
});
afterAll(async () => {
  await h.dispose();
  fake.close();
});

async function search(query: string) {
  const session = await h.newSession({
    replies: [
      { toolCalls: [{ id: "s1", name: "web_search", arguments: { query } }] },
      { match: "", text: "Found it." },
    ],
  });
  const events = await h.send(session.id, `search ${query}`);
  return { tools: h.model.requests[0]!.tools, result: only(events, "tool_result")[0]!.payload };
}

describe("web_search wiring", () => {
  it("is not offered to the model while no search service is configured", async () => {
    const session = await h.newSession({ replies: [{ text: "ok" }] });
    await h.send(session.id, "hello");
    expect(h.model.requests.at(-1)!.tools).not.toContain("web_search");
    expect((await h.caller.model.list({ projectId: h.project.id })).webSearch).toBeNull();
  });

  it.each([
    [
      "searxng",
      { kind: "searxng" as const, url: `/searx` },
      "SearX hit",
      (s: (typeof seen)[number]) => expect(s.url).toBe("/searx/search?q=tandem&format=json"),
    ],
    [
      "brave",
      { kind: "brave" as const, apiKey: "brave-key", url: "/brave" },
      "Brave hit",
      (s: (typeof seen)[number]) => expect(s.headers["x-subscription-token"]).toBe("brave-key"),
    ],
    [
      "tavily",
      { kind: "tavily" as const, apiKey: "tavily-key", url: "/tavily" },
      "Tavily hit",
      (s: (typeof seen)[number]) => expect(s.headers.authorization).toBe("Bearer tavily-key"),
    ],
  ])(
    "with %s set by an admin, the model gets web_search and its call reaches the service",
    async (kind, backend, hit, check) => {
      await h.caller.account.setWebSearch({ backend: { ...backend, url: `${base}${backend.url}` } });
      const { tools, result } = await search("tandem");
      expect(tools).toContain("web_search");
      expect(result).toMatchObject({ ok: true });
      expect(result.llm).toContain(hit);
      check(seen.at(-1)!);
      expect((await h.caller.model.list({ projectId: h.project.id })).webSearch).toBe(kind);
      const shown = await h.caller.account.webSearch();
      expect(JSON.stringify(shown)).not.toContain("-key");
    },
  );

  it("goes back to none when the admin clears it (and the environment has none)", async () => {
    await h.caller.account.setWebSearch({ backend: null });
    expect((await h.caller.model.list({ projectId: h.project.id })).webSearch).toBeNull();
  });
});
