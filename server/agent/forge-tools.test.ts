import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeGitCredential } from "@/server/services/git-credentials";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// github_api through the running server: a turn offers it only once the session's author stored a
// token for a GitHub host, and the call reaches the forge (a local REST stand-in on loopback that
// the server's admin configured, TANDEM_GIT_FORGES) with that token.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let forge: Server;
const auth: (string | undefined)[] = [];

beforeAll(async () => {
  forge = createServer((req, res) => {
    auth.push(req.headers.authorization);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(req.url === "/api/v3/user" ? { login: "ann-on-github" } : { message: "Not Found" }));
  });
  await new Promise<void>((resolve) => forge.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(forge.address() as AddressInfo).port}`;
  h = await createAgentHarness({
    extensions: { forges: { [host]: { kind: "github", api: `http://${host}/api/v3` } } },
  });
  (h as unknown as { host: string }).host = host;
}, 60_000);
afterAll(async () => {
  await h?.dispose();
  forge?.close();
});

describe("github_api in a turn", () => {
  it("is offered once the author stored a token, and calls the forge with it", async () => {
    // Without a stored token there is no github_api to call (it is sent by name only, behind
    // tool_search, once there is one: a call by name works either way).
    const first = await h.newSession({
      replies: [
        { match: "who am I", toolCalls: [{ name: "github_api", arguments: { path: "/user" } }] },
        { match: "", text: "No forge tools." },
      ],
    });
    await h.send(first.id, "who am I on GitHub?");
    await h.waitFor(async () => (await h.status(first.id)) === "idle");
    expect(only(await h.events(first.id), "tool_result").at(-1)!.payload).toMatchObject({
      toolName: "github_api",
      ok: false,
    });
    expect(auth).toEqual([]);

    const host = (h as unknown as { host: string }).host;
    await storeGitCredential(
      h.env.services.db,
      h.env.services.gitCipher,
      { name: "GitHub", host, token: "ghp-ann" },
      { userId: h.user.id },
      h.user.id,
    );
    const session = await h.newSession({
      replies: [
        { match: "who am I", toolCalls: [{ name: "github_api", arguments: { path: "/user" } }] },
        { match: "ann-on-github", text: "You are ann-on-github." },
      ],
    });
    let events = await h.send(session.id, "who am I on GitHub?");
    // A read asks as web_fetch does in "ask" mode.
    const asked = only(events, "approval_requested")[0]!;
    await h.caller.approval.respond({ approvalId: asked.payload.approvalId, decision: "approve" });
    await h.waitFor(async () => (await h.status(session.id)) === "idle");
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(only(events, "tool_result").at(-1)!.payload).toMatchObject({ toolName: "github_api", ok: true });
    expect(auth).toEqual(["Bearer ghp-ann"]);
  }, 60_000);
});
