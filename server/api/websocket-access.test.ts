import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import superjson from "superjson";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { startServer, type RunningServer } from "@/server/start-server";
import { createSession } from "@/server/db/repositories/sessions";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { setSetting } from "@/server/db/repositories/settings";
import { updateToolSettings } from "@/server/db/repositories/tool-settings";
import { findUser } from "@/server/db/repositories/users";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { languageSocketUrl } from "@/lib/language-protocol";
import { jsonRpcCall } from "@/server/test/json-rpc-socket";

// The WebSocket endpoints of the authorization matrix, through a real HTTP server: tRPC
// subscriptions on /api/trpc/ws (login cookie, or a share token as a connection param) and the
// terminal socket. Upgrades from another origin are refused before anything else.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
const cookies: Record<string, string> = {};
let projectId: string;
let teamId: string;
let sessionId: string;
let terminalId: string;
const callerFor = createCallerFactory(appRouter);
let ownerCaller: ReturnType<typeof callerFor>;

const signUp = (name: string) => signUpPerson(env.services, name);

function trpcOver(options: { cookie?: string; shareToken?: string; origin?: string }) {
  class Socket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, {
        headers: { ...(options.cookie ? { cookie: options.cookie } : {}), origin: options.origin ?? base },
      });
    }
  }
  const ws = createWSClient({
    url: `${base.replace("http", "ws")}/api/trpc/ws`,
    WebSocket: Socket as unknown as typeof globalThis.WebSocket,
    connectionParams: options.shareToken ? { shareToken: options.shareToken } : undefined,
    retryDelayMs: () => 60_000,
  });
  return {
    trpc: createTRPCClient<AppRouter>({ links: [wsLink({ client: ws, transformer: superjson })] }),
    close: () => ws.close(),
  };
}

/** How a session.events subscription goes: its first item, or its error code. */
function firstEvent(options: Parameters<typeof trpcOver>[0]) {
  const client = trpcOver(options);
  let ended: (reason: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => (ended = resolve));
  const subscription = client.trpc.session.events.subscribe(
    { sessionId, afterSeq: 0 },
    {
      onData: () => ended("data"),
      onError: (error) => ended((error.data as { code?: string } | undefined)?.code ?? error.message),
    },
  );
  const timer = setTimeout(() => ended("timeout"), 5_000);
  return {
    outcome: outcome.finally(() => clearTimeout(timer)),
    /** Resolves with the error code the live subscription ends with, and when. */
    ended: () =>
      new Promise<{ code: string; at: number }>((resolve) => (ended = (code) => resolve({ code, at: Date.now() }))),
    close() {
      subscription.unsubscribe();
      client.close();
    },
  };
}

/** How a board.watch, comment.watch, environment.output or notification.watch subscription goes: its first item or its error code, then how it ends. */
function firstOf(kind: "board" | "comments" | "environment" | "inbox", options: Parameters<typeof trpcOver>[0]) {
  const client = trpcOver(options);
  let ended: (reason: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => (ended = resolve));
  const handlers = {
    onData: () => ended("data"),
    onError: (error: { data?: unknown; message: string }) =>
      ended((error.data as { code?: string } | undefined)?.code ?? error.message),
  };
  const subscription =
    kind === "board"
      ? client.trpc.board.watch.subscribe({ projectId }, handlers)
      : kind === "environment"
        ? client.trpc.environment.output.subscribe({ projectId }, handlers)
        : kind === "inbox"
          ? client.trpc.notification.watch.subscribe(undefined, handlers)
          : client.trpc.comment.watch.subscribe({ sessionId }, handlers);
  const timer = setTimeout(() => ended("timeout"), 5_000);
  return {
    outcome: outcome.finally(() => clearTimeout(timer)),
    ended: () =>
      new Promise<{ code: string; at: number }>((resolve) => (ended = (code) => resolve({ code, at: Date.now() }))),
    close() {
      subscription.unsubscribe();
      client.close();
    },
  };
}

function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => resolve({ status: 101, ws }));
    ws.on("unexpected-response", (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on("error", () => resolve({ status: 0 }));
  });
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const owner = await signUp("Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const member = await signUp("Milo");
  const viewer = await signUp("Vera");
  const stranger = await signUp("Sam");
  Object.assign(cookies, {
    owner: owner.cookie,
    member: member.cookie,
    viewer: viewer.cookie,
    stranger: stranger.cookie,
  });
  const db = env.services.db;
  const team = await createTeam(db, { name: "Acme", ownerId: owner.id });
  await addMember(db, team.id, member.id, "member");
  await addMember(db, team.id, viewer.id, "viewer");
  teamId = team.id;
  const ownerUser = (await findUser(db, owner.id))!;
  const caller = callerFor(env.context(ownerUser));
  ownerCaller = caller;
  projectId = (await caller.project.create({ name: "Sockets", teamId: team.id })).id;
  sessionId = (
    await createSession(db, { projectId, title: "Live", authorId: owner.id, model: "openai-compatible:none" })
  ).id;
  await env.services.agent.log.append(sessionId, "user_message", { text: "hello", authorName: "Olive" }, owner.id);
  terminalId = (await caller.terminal.create({ projectId, cols: 80, rows: 24 })).id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("tRPC WebSocket (/api/trpc/ws)", () => {
  it("streams a session to its team, refuses anonymous and other-team callers", async () => {
    const cases: Array<[string, Parameters<typeof trpcOver>[0], string]> = [
      ["owner", { cookie: cookies.owner }, "data"],
      ["viewer", { cookie: cookies.viewer }, "data"],
      ["anonymous", {}, "UNAUTHORIZED"],
      ["other team", { cookie: cookies.stranger }, "NOT_FOUND"],
      ["bad share token", { shareToken: "x".repeat(43) }, "FORBIDDEN"],
    ];
    for (const [who, options, want] of cases) {
      const sub = firstEvent(options);
      expect(await sub.outcome, who).toBe(want);
      sub.close();
    }
  });

  it("streams to a view link, and ends the stream within 2 s of revoking it", async () => {
    const owner = ownerCaller;
    const link = await owner.share.create({ sessionId, scope: "view", label: "watcher" });
    const sub = firstEvent({ shareToken: link.token });
    expect(await sub.outcome).toBe("data");
    const ended = sub.ended();
    const revokedAt = Date.now();
    await owner.share.revoke({ sessionId, linkId: link.id });
    const end = await ended;
    expect(end.code).toBe("FORBIDDEN");
    expect(end.at - revokedAt).toBeLessThan(2_000);
    sub.close();
  });

  it("streams the sessions board to the team only, and a session's comments to its view link until it is revoked", async () => {
    const cases: Array<[string, Parameters<typeof trpcOver>[0], string]> = [
      ["viewer", { cookie: cookies.viewer }, "data"],
      ["anonymous", {}, "UNAUTHORIZED"],
      ["other team", { cookie: cookies.stranger }, "NOT_FOUND"],
    ];
    for (const [who, options, want] of cases) {
      const sub = firstOf("board", options);
      expect(await sub.outcome, who).toBe(want);
      sub.close();
    }
    const link = await ownerCaller.share.create({ sessionId, scope: "view", label: "comments" });
    const sub = firstOf("comments", { shareToken: link.token });
    expect(await sub.outcome).toBe("data");
    const ended = sub.ended();
    const revokedAt = Date.now();
    await ownerCaller.share.revoke({ sessionId, linkId: link.id });
    const end = await ended;
    expect(end.code).toBe("FORBIDDEN");
    expect(end.at - revokedAt).toBeLessThan(2_000);
    sub.close();
  });

  it("streams a project's setup output to its team only, and ends it within 2 s of a member's removal", async () => {
    const cases: Array<[string, Parameters<typeof trpcOver>[0], string]> = [
      ["viewer", { cookie: cookies.viewer }, "data"],
      ["anonymous", {}, "UNAUTHORIZED"],
      ["other team", { cookie: cookies.stranger }, "NOT_FOUND"],
    ];
    for (const [who, options, want] of cases) {
      const sub = firstOf("environment", options);
      expect(await sub.outcome, who).toBe(want);
      sub.close();
    }
    const leaving = await signUp("Lee");
    await addMember(env.services.db, teamId, leaving.id, "member");
    const sub = firstOf("environment", { cookie: leaving.cookie });
    expect(await sub.outcome).toBe("data");
    const ended = sub.ended();
    const removedAt = Date.now();
    await ownerCaller.team.removeMember({ teamId, userId: leaving.id });
    const end = await ended;
    expect(end.code).toMatch(/NOT_FOUND|FORBIDDEN/);
    expect(end.at - removedAt).toBeLessThan(2_000);
    sub.close();
  });

  it("streams a person's inbox to them only, and ends it within 2 s of their sign-out", async () => {
    const anonymous = firstOf("inbox", {});
    expect(await anonymous.outcome).toBe("UNAUTHORIZED");
    anonymous.close();
    const nell = await signUp("Nell");
    const sub = firstOf("inbox", { cookie: nell.cookie });
    expect(await sub.outcome).toBe("data");
    const ended = sub.ended();
    const signedOutAt = Date.now();
    const response = await fetch(`${base}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: nell.cookie, origin: base, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    const end = await ended;
    expect(end.code).toBe("UNAUTHORIZED");
    expect(end.at - signedOutAt).toBeLessThan(2_000);
    sub.close();
  });

  it("refuses an upgrade from another origin", async () => {
    const { status } = await upgrade(`${base.replace("http", "ws")}/api/trpc/ws`, {
      origin: "https://evil.example.com",
      cookie: cookies.owner,
    });
    expect(status).toBe(403);
  });
});

describe("terminal WebSocket", () => {
  const url = () => terminalSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, terminalId);

  it("checks the caller and the origin before upgrading", async () => {
    expect((await upgrade(url(), { origin: base })).status).toBe(401);
    expect((await upgrade(url(), { origin: base, cookie: cookies.stranger })).status).toBe(404);
    expect((await upgrade(url(), { origin: "https://evil.example.com", cookie: cookies.owner })).status).toBe(403);
    const bogus = terminalSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, crypto.randomUUID());
    expect((await upgrade(bogus, { origin: base, cookie: cookies.owner })).status).toBe(404);
  });

  it("lets the owner type; others watch until the owner grants input", async () => {
    const output: Record<string, string> = { owner: "", member: "", viewer: "" };
    const sockets: Record<string, WebSocket> = {};
    for (const who of ["owner", "member", "viewer"] as const) {
      const { status, ws } = await upgrade(url(), { origin: base, cookie: cookies[who]! });
      expect(status, who).toBe(101);
      ws!.on("message", (data, binary) => {
        if (binary) output[who] += data.toString();
      });
      sockets[who] = ws!;
    }
    const type = (who: string, text: string) => sockets[who]!.send(JSON.stringify({ type: "input", data: text }));
    const seen = async (text: string) => {
      const end = Date.now() + 5_000;
      while (Date.now() < end && !output.viewer!.includes(text)) await new Promise((r) => setTimeout(r, 50));
      return output.viewer!.includes(text);
    };
    type("owner", "echo owner-$((40+2))\r");
    expect(await seen("owner-42")).toBe(true);
    type("member", "echo member-$((40+3))\r");
    expect(await seen("member-43")).toBe(false);

    await ownerCaller.terminal.shareInput({ projectId, terminalId, shared: true });
    type("member", "echo member-$((40+4))\r");
    expect(await seen("member-44")).toBe(true);
    type("viewer", "echo viewer-$((40+5))\r");
    expect(await seen("viewer-45")).toBe(false);
    for (const ws of Object.values(sockets)) ws.close();
  });
});

describe("language server WebSocket", () => {
  const url = (server = "typescript", project = projectId) =>
    languageSocketUrl({ protocol: "http:", host: new URL(base).host }, project, server);
  const call = jsonRpcCall;

  it("checks the caller, the project, the server and the origin before upgrading", async () => {
    expect((await upgrade(url(), { origin: base })).status).toBe(401);
    expect((await upgrade(url(), { origin: base, cookie: cookies.stranger })).status).toBe(404);
    expect((await upgrade(url(), { origin: "https://evil.example.com", cookie: cookies.owner })).status).toBe(403);
    expect((await upgrade(url("cobol"), { origin: base, cookie: cookies.owner })).status).toBe(404);
    expect(
      (await upgrade(url("typescript", crypto.randomUUID()), { origin: base, cookie: cookies.owner })).status,
    ).toBe(404);
  });

  it("serves viewers read-only: they may ask the server, not run its commands", async () => {
    const { status, ws } = await upgrade(url(), { origin: base, cookie: cookies.viewer });
    expect(status).toBe(101);
    const init = await call(ws!, 1, "initialize", { processId: null, rootUri: null, capabilities: {} });
    expect(init.result.capabilities.hoverProvider).toBeTruthy();
    const command = await call(ws!, 2, "workspace/executeCommand", {
      command: "_typescript.organizeImports",
      arguments: [],
    });
    expect(command.error?.message).toMatch(/read-only/);
    ws!.send("not json");
    const closed = await new Promise<number>((resolve) => ws!.on("close", (code) => resolve(code)));
    expect(closed).toBe(4400);
  }, 60_000);
});

// A server the project's settings add (lib/language-plugins.ts) is reached on the same socket under
// the same checks: a real second typescript-language-server serving `*.mts`, as language-plugins.test.ts starts it.
describe("a configured language server's WebSocket", () => {
  const CLI = path.resolve("node_modules/typescript-language-server/lib/cli.mjs");
  const url = (project: string) => languageSocketUrl({ protocol: "http:", host: new URL(base).host }, project, "mts");

  it("opens for members and viewers of the project that configured it, read-only for viewers, and nowhere else", async () => {
    const configured = (await ownerCaller.project.create({ name: "Configured", teamId })).id;
    await updateToolSettings(env.services.db, configured, {
      languageServers: { mts: { command: ["node", CLI, "--stdio"], files: ["*.mts"], languageId: "typescript" } },
    });
    const root = (await env.services.files.open(configured)).root;
    await writeFile(
      path.join(root, "shapes.mts"),
      "export function area(width: number): number {\n  return width;\n}\n",
    );
    expect(await ownerCaller.language.configured({ projectId: configured })).toEqual([
      { id: "mts", files: ["*.mts"], languageId: "typescript" },
    ]);

    expect((await upgrade(url(configured), { origin: base })).status).toBe(401);
    expect((await upgrade(url(configured), { origin: base, cookie: cookies.stranger })).status).toBe(404);
    expect((await upgrade(url(configured), { origin: "https://evil.example.com", cookie: cookies.owner })).status).toBe(
      403,
    );
    expect((await upgrade(url(projectId), { origin: base, cookie: cookies.owner })).status).toBe(404);

    const { status, ws } = await upgrade(url(configured), { origin: base, cookie: cookies.viewer });
    expect(status).toBe(101);
    const init = await jsonRpcCall(ws!, 1, "initialize", { processId: null, rootUri: null, capabilities: {} });
    expect(init.result.capabilities.hoverProvider).toBeTruthy();
    ws!.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized", params: {} }));
    ws!.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "textDocument/didOpen",
        params: { textDocument: { uri: "file:///shapes.mts", languageId: "typescript", version: 1, text: "" } },
      }),
    );
    const hover = await jsonRpcCall(ws!, 2, "textDocument/hover", {
      textDocument: { uri: "file:///shapes.mts" },
      position: { line: 0, character: 17 },
    });
    expect(JSON.stringify(hover.result)).toContain("area(width: number): number");
    const command = await jsonRpcCall(ws!, 3, "workspace/executeCommand", {
      command: "_typescript.organizeImports",
      arguments: [],
    });
    expect(command.error?.message).toMatch(/read-only/);
    ws!.close();
  }, 90_000);
});
