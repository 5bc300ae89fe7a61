import { randomUUID } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { languageSocketUrl } from "@/lib/language-protocol";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { setSetting } from "@/server/db/repositories/settings";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { startServer, type RunningServer } from "@/server/start-server";
import { jsonRpcCall } from "@/server/test/json-rpc-socket";
import { createTestServices } from "@/server/test/services";
import { uriRewriter } from "./language-socket";

describe("language socket URIs", () => {
  const { toClient, toServer } = uriRewriter("/data/workspaces/p 1");

  it("shows workspace files as file:///<path> and hides the server's folders", () => {
    const message = {
      uri: "file:///data/workspaces/p%201/src/a.ts",
      root: "file:///data/workspaces/p%201",
      lib: "file:///opt/tandem/language/node_modules/typescript/lib/lib.es5.d.ts",
      text: "file: a",
    };
    expect(toClient(message)).toEqual({
      uri: "file:///src/a.ts",
      root: "file:///",
      lib: "tandem-external:///opt/tandem/language/node_modules/typescript/lib/lib.es5.d.ts",
      text: "file: a",
    });
  });

  it("maps the editor's URIs back, keeps keys (a rename's changes by URI) in step, and never turns an external URI into a host path", () => {
    expect(toServer({ changes: { "file:///src/a.ts": [] }, uri: "tandem-external:///opt/x.d.ts" })).toEqual({
      changes: { "file:///data/workspaces/p%201/src/a.ts": [] },
      uri: "tandem-external:///opt/x.d.ts",
    });
    expect(toClient(toServer({ uri: "file:///src/b.ts" }))).toEqual({ uri: "file:///src/b.ts" });
  });
});

// The attack of issue 38 (1): a viewer opened host files by naming them in didOpen, and got their
// text back from a request that returns a document's text (the HTML server's formatting). Through
// a real server and socket, as a viewer and as a member, every way of naming a file outside the
// workspace: the external scheme, '..', percent-encoded climbs, another team's project, a link.
describe("a language socket reaches only its project's workspace", () => {
  let env: Awaited<ReturnType<typeof createTestServices>>;
  let server: RunningServer;
  let base: string;
  let projectId: string;
  let root: string;
  let hostDir: string;
  const cookies: Record<string, string> = {};
  const marker = `HOST-SECRET-${randomUUID()}`;
  const otherMarker = `OTHER-TEAM-${randomUUID()}`;
  let hostSecret: string;
  let otherSecret: string;

  async function signUp(name: string): Promise<{ cookie: string; id: string }> {
    const response = await env.services.auth.api.signUpEmail({
      body: { name, email: `${name.toLowerCase()}-${randomUUID()}@example.com`, password: "correct-horse-battery" },
      asResponse: true,
    });
    const cookie = response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    return { cookie, id: ((await response.json()) as { user: { id: string } }).user.id };
  }

  beforeAll(async () => {
    env = await createTestServices();
    server = await startServer(
      { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } },
      { dir: process.cwd(), pages: false },
    );
    base = server.url;
    const owner = await signUp("Olive");
    await setSetting(env.services.db, "signupMode", "open");
    const member = await signUp("Milo");
    const viewer = await signUp("Vera");
    const stranger = await signUp("Sam");
    Object.assign(cookies, { member: member.cookie, viewer: viewer.cookie });
    const db = env.services.db;
    const team = await createTeam(db, { name: `Acme ${randomUUID().slice(0, 6)}`, ownerId: owner.id });
    await addMember(db, team.id, member.id, "member");
    await addMember(db, team.id, viewer.id, "viewer");
    const ownerCaller = createCallerFactory(appRouter)(env.context((await findUser(db, owner.id))!));
    projectId = (await ownerCaller.project.create({ name: "Language", teamId: team.id })).id;
    root = (await env.services.files.open(projectId)).root;
    await writeFile(path.join(root, "page.html"), "<div>\n<p>workspace page</p>\n</div>\n");

    const otherTeam = await createTeam(db, { name: `Other ${randomUUID().slice(0, 6)}`, ownerId: stranger.id });
    const strangerCaller = createCallerFactory(appRouter)(env.context((await findUser(db, stranger.id))!));
    const otherProject = (await strangerCaller.project.create({ name: "Theirs", teamId: otherTeam.id })).id;
    otherSecret = path.join((await env.services.files.open(otherProject)).root, "private.html");
    await writeFile(otherSecret, `<div>\n<p>${otherMarker}</p>\n</div>\n`);

    hostDir = await mkdtemp(path.join(os.tmpdir(), "tandem-host-"));
    hostSecret = path.join(hostDir, "root-only.html");
    await writeFile(hostSecret, `<div>\n<p>${marker}</p>\n</div>\n`);
    await chmod(hostSecret, 0o600);
    await symlink(hostSecret, path.join(root, "linked.html"));
    await mkdir(path.join(root, "sub"));
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await env?.dispose();
    if (hostDir) await rm(hostDir, { recursive: true, force: true });
  });

  function open(cookie: string): Promise<{ ws: WebSocket; frames: string[] }> {
    const url = languageSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, "html");
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { origin: base, cookie } });
      const frames: string[] = [];
      ws.on("message", (data) => frames.push(data.toString()));
      ws.on("open", () => resolve({ ws, frames }));
      ws.on("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  /** Every spelling of a file outside the workspace that an attacker sends (as the socket's client sees URIs). */
  const attacks = () => {
    const climb = "../".repeat(30);
    const encodedClimb = "%2e%2e/".repeat(30);
    return [
      `tandem-external://${hostSecret}`,
      `tandem-external://${otherSecret}`,
      `file:///${climb}${hostSecret.slice(1)}`,
      `file:///${encodedClimb}${hostSecret.slice(1)}`,
      `file:///${"%2E%2E%2F".repeat(30)}${hostSecret.slice(1)}`,
      `file:///sub/${climb}${otherSecret.slice(1)}`,
      `file://${hostSecret}`,
      `file://localhost/${climb}${hostSecret.slice(1)}`,
      `file:///linked.html`,
      `file:///page.html%00/${climb}${hostSecret.slice(1)}`,
    ];
  };

  async function probe(who: "viewer" | "member"): Promise<{ frames: string[]; page: string }> {
    const { ws, frames } = await open(cookies[who]!);
    let id = 1;
    const init = await jsonRpcCall(ws, id++, "initialize", { processId: null, rootUri: "file:///", capabilities: {} });
    expect(init.result?.capabilities).toBeTruthy();
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized", params: {} }));
    for (const uri of attacks()) {
      // A member's editor sends its own text; a viewer's is not trusted. Neither may make the hub read the file.
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "textDocument/didOpen",
          params: { textDocument: { uri, languageId: "html", version: 1, text: "<p>mine</p>" } },
        }),
      );
      // Asked twice, as an attacker would: on main the hub read the file while the first went ahead.
      for (let again = 0; again < 2; again++)
        await jsonRpcCall(ws, id++, "textDocument/formatting", {
          textDocument: { uri },
          options: { tabSize: 2, insertSpaces: true },
        });
      await jsonRpcCall(ws, id++, "textDocument/documentSymbol", { textDocument: { uri } });
      await jsonRpcCall(ws, id++, "textDocument/hover", {
        textDocument: { uri },
        position: { line: 0, character: 10 },
      });
    }
    // The same way into a workspace file works: the probe would have seen host text had it been read.
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "textDocument/didOpen",
        params: {
          textDocument: {
            uri: "file:///page.html",
            languageId: "html",
            version: 1,
            text: "<div>\n<p>workspace page</p>\n</div>\n",
          },
        },
      }),
    );
    const formatted = await jsonRpcCall(ws, id++, "textDocument/formatting", {
      textDocument: { uri: "file:///page.html" },
      options: { tabSize: 2, insertSpaces: true },
    });
    ws.close();
    return { frames, page: JSON.stringify(formatted.result) };
  }

  for (const who of ["viewer", "member"] as const) {
    it(`gives a ${who} no text of a host file, another team's file or a link leading out`, async () => {
      const { frames, page } = await probe(who);
      const leaked = frames.filter((frame) => frame.includes(marker) || frame.includes(otherMarker));
      expect(leaked).toEqual([]);
      expect(page).toContain("workspace page");
    }, 90_000);
  }
});
