import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// The server's own fetches for a project obey the project's network policy, as its sandboxed
// processes do: through the real entry points (the agent's web_fetch and web_search calls, a
// person's @url mention), against a real server on loopback that web_fetch may reach (as only
// tests may), so what stops a request is the policy and nothing else.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let site: Server;
let base = "";
const reached: string[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    reached.push(req.url ?? "");
    res.setHeader("content-type", req.url?.startsWith("/searx") ? "application/json" : "text/plain");
    res.end(
      req.url?.startsWith("/searx")
        ? JSON.stringify({ results: [{ title: "hit", url: "https://a.example", content: "x" }] })
        : "the project's secret page",
    );
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  h = await createAgentHarness({ coreTools: true, fetchAllowHosts: [`127.0.0.1:${port}`] });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  await h.caller.account.setWebSearch({ backend: { kind: "searxng", url: `${base}/searx` } });
});
afterAll(async () => {
  await h.dispose();
  site.close();
});

const setPolicy = (policy: "off" | "allow-list" | "open", allowHosts: string[] = []) =>
  h.caller.network.update({ projectId: h.project.id, policy, allowHosts });

async function agentCalls(name: "web_fetch" | "web_search", args: Record<string, unknown>) {
  const session = await h.newSession({
    replies: [{ toolCalls: [{ id: "c1", name, arguments: args }] }, { match: "", text: "done" }],
  });
  const events = await h.send(session.id, `use ${name}`);
  return { result: only(events, "tool_result")[0]!.payload, events };
}

async function mention(url: string) {
  const session = await h.newSession({ replies: [{ text: "ok" }] });
  await h.caller.session.send({ sessionId: session.id, text: `see @${url}`, mentions: [url] });
  await h.agent.idle(session.id);
  return only(await h.events(session.id), "user_message")[0]!.payload.mentions![0]!;
}

describe("the project's network policy and the server's own fetches", () => {
  it("with the policy open, web_fetch, a mention and web_search reach the server (the test's control)", async () => {
    await setPolicy("open");
    reached.length = 0;
    expect((await agentCalls("web_fetch", { url: `${base}/page` })).result).toMatchObject({ ok: true });
    expect(await mention(`${base}/mentioned`)).toMatchObject({ ok: true });
    expect((await agentCalls("web_search", { query: "tandem" })).result).toMatchObject({ ok: true });
    expect(reached).toEqual(["/page", "/mentioned", "/searx/search?q=tandem&format=json"]);
  }, 30_000);

  it("with the policy off, web_fetch, a mention and web_search are refused, say who can change it, and reach nothing", async () => {
    await setPolicy("off");
    reached.length = 0;
    const fetched = (await agentCalls("web_fetch", { url: `${base}/page` })).result;
    expect(fetched).toMatchObject({ ok: false, errorCode: "NETWORK_POLICY" });
    expect(fetched.llm).toMatch(/network policy is off.*project owner or admin can change/);
    const mentioned = await mention(`${base}/mentioned`);
    expect(mentioned).toMatchObject({ ok: false });
    expect(mentioned.text).toMatch(/network policy is off/);
    const searched = (await agentCalls("web_search", { query: "the project's words" })).result;
    expect(searched).toMatchObject({ ok: false, errorCode: "NETWORK_POLICY" });
    expect(reached).toEqual([]);
  }, 30_000);

  it("with an allow-list, web_fetch and mentions reach only its hosts, and a refused host gets the Allow card", async () => {
    await setPolicy("allow-list", ["registry.npmjs.org"]);
    reached.length = 0;
    const { result, events } = await agentCalls("web_fetch", { url: `${base}/page` });
    expect(result).toMatchObject({ ok: false, errorCode: "NETWORK_POLICY" });
    expect(result.llm).toMatch(/127\.0\.0\.1 is not on this project's network allow-list/);
    expect(only(events, "network_denied")[0]!.payload.hosts).toEqual(["127.0.0.1"]);
    expect((await mention(`${base}/mentioned`)).ok).toBe(false);
    expect(reached).toEqual([]);
    await setPolicy("allow-list", ["127.0.0.1"]);
    expect((await agentCalls("web_fetch", { url: `${base}/page` })).result).toMatchObject({ ok: true });
    expect(reached).toEqual(["/page"]);
  }, 30_000);
});
