import fs from "node:fs/promises";
import path from "node:path";
import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import superjson from "superjson";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { startServer, type RunningServer } from "@/server/start-server";
import { createSession } from "@/server/db/repositories/sessions";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { setSetting } from "@/server/db/repositories/settings";
import { findUser } from "@/server/db/repositories/users";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { until } from "@/server/test/until";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Access taken away reaches what is already open, as an attacker holding connections would test
// it: a removed member's event stream, file-change stream and terminal are cut within 2 s and
// what they type after does not run; a member lowered to viewer types nothing; after sign-out the
// same tRPC WebSocket answers nothing more.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let teamId: string;
let projectId: string;
let sessionId: string;
let terminalId: string;
let workspaceRoot: string;
const callerFor = createCallerFactory(appRouter);
let owner: ReturnType<typeof callerFor>;

const signUp = (name: string) => signUpPerson(env.services, name);

async function member(name: string, role: "member" | "viewer" = "member") {
  const person = await signUp(name);
  await addMember(env.services.db, teamId, person.id, role);
  return person;
}

function trpcOver(cookie: string) {
  class Socket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie, origin: base } });
    }
  }
  const ws = createWSClient({
    url: `${base.replace("http", "ws")}/api/trpc/ws`,
    WebSocket: Socket as unknown as typeof globalThis.WebSocket,
    retryDelayMs: () => 60_000,
  });
  return {
    trpc: createTRPCClient<AppRouter>({ links: [wsLink({ client: ws, transformer: superjson })] }),
    close: () => ws.close(),
  };
}

/** A live subscription as seen from outside: whether data came, and the error it ended with, and when. */
function watch(
  start: (handlers: { onData: () => void; onError: (error: { data?: unknown; message: string }) => void }) => {
    unsubscribe(): void;
  },
) {
  const state = { data: 0, end: null as { code: string; at: number } | null };
  const subscription = start({
    onData: () => void state.data++,
    onError: (error) =>
      (state.end = { code: (error.data as { code?: string } | undefined)?.code ?? error.message, at: Date.now() }),
  });
  return { state, unsubscribe: () => subscription.unsubscribe() };
}

async function openTerminal(cookie: string) {
  const url = terminalSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, terminalId);
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { cookie, origin: base } });
    socket.on("open", () => resolve(socket));
    socket.on("unexpected-response", (_req, res) => reject(new Error(`terminal upgrade refused: ${res.statusCode}`)));
  });
  const seen = { output: "", closed: null as { code: number; at: number } | null };
  ws.on("message", (data, binary) => {
    if (binary) seen.output += data.toString();
  });
  ws.on("close", (code) => (seen.closed = { code, at: Date.now() }));
  return {
    ws,
    seen,
    type: (text: string) => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: "input", data: text })),
  };
}

const exists = (name: string) =>
  fs.access(path.join(workspaceRoot, name)).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  env = await createTestServices();
  server = await startServer(
    { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } },
    { dir: process.cwd(), pages: false },
  );
  base = server.url;
  const olive = await signUp("Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const db = env.services.db;
  teamId = (await createTeam(db, { name: "Acme", ownerId: olive.id })).id;
  owner = callerFor(env.context((await findUser(db, olive.id))!));
  projectId = (await owner.project.create({ name: "Live", teamId })).id;
  workspaceRoot = (await env.services.files.open(projectId)).root;
  sessionId = (
    await createSession(db, { projectId, title: "Live", authorId: olive.id, model: "openai-compatible:none" })
  ).id;
  await env.services.agent.log.append(sessionId, "user_message", { text: "hello", authorName: "Olive" }, olive.id);
  terminalId = (await owner.terminal.create({ projectId, cols: 80, rows: 24 })).id;
  await owner.terminal.shareInput({ projectId, terminalId, shared: true });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("access taken away reaches open connections", () => {
  it("cuts a removed member's event stream, file-change stream and terminal within 2 s; what they type after does not run", async () => {
    const rita = await member("Rita");
    const client = trpcOver(rita.cookie);
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    const changes = watch((handlers) => client.trpc.fs.changes.subscribe({ projectId }, handlers));
    const terminal = await openTerminal(rita.cookie);
    await until(() => events.state.data > 0, "the session's events", 5_000);
    // The change stream is live: a file the owner writes shows up in it.
    await sleep(300);
    await owner.fs.write({ projectId, path: "before.txt", content: "x", createParents: false });
    // Without a cursor the stream opens by saying to read everything (REREAD_ALL); then the write.
    await until(() => changes.state.data > 1, "the file changes", 5_000);
    terminal.type("echo rita-$((40+2))\r");
    await until(() => terminal.seen.output.includes("rita-42"), "the terminal's output", 5_000);

    const removedAt = Date.now();
    await owner.team.removeMember({ teamId, userId: rita.id });
    terminal.type("echo leaked > leaked.txt\r");

    await until(
      () => !!events.state.end && !!changes.state.end && !!terminal.seen.closed,
      "every stream to end",
      2_000,
    );
    expect(events.state.end!.code).toBe("NOT_FOUND");
    expect(changes.state.end!.code).toBe("NOT_FOUND");
    expect(terminal.seen.closed!.code).toBe(4403);
    for (const end of [events.state.end!.at, changes.state.end!.at, terminal.seen.closed!.at])
      expect(end - removedAt).toBeLessThan(2_000);
    await sleep(500);
    expect(await exists("leaked.txt")).toBe(false);
    client.close();
  });

  it("a member lowered to viewer cannot type, and keeps watching", async () => {
    const dana = await member("Dana");
    const client = trpcOver(dana.cookie);
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    const terminal = await openTerminal(dana.cookie);
    terminal.type("echo dana-$((40+3))\r");
    await until(() => terminal.seen.output.includes("dana-43"), "the terminal's output", 5_000);

    await owner.team.setRole({ teamId, userId: dana.id, role: "viewer" });
    terminal.type("echo typed > typed-by-viewer.txt\r");
    await sleep(1_000);
    expect(await exists("typed-by-viewer.txt")).toBe(false);
    expect(terminal.seen.closed).toBeNull();
    expect(events.state.end).toBeNull();
    terminal.ws.close();
    client.close();
  });

  it("after sign-out the same tRPC WebSocket answers nothing more, and its streams end within 2 s", async () => {
    const sam = await member("Sam");
    const client = trpcOver(sam.cookie);
    expect((await client.trpc.account.me.query())?.id).toBe(sam.id);
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    await until(() => events.state.data > 0, "the session's events", 5_000);

    const signedOutAt = Date.now();
    const response = await fetch(`${base}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: sam.cookie, origin: base, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);

    await expect(client.trpc.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    await expect(client.trpc.team.create.mutate({ name: "After sign-out" })).rejects.toMatchObject({
      data: { code: "UNAUTHORIZED" },
    });
    await until(() => !!events.state.end, "the event stream to end", 2_000);
    expect(events.state.end!.code).toBe("UNAUTHORIZED");
    expect(events.state.end!.at - signedOutAt).toBeLessThan(2_000);
    client.close();
  });

  it("ends a session's watchers when the session is deleted", async () => {
    const extra = (
      await createSession(env.services.db, {
        projectId,
        title: "Doomed",
        authorId: null,
        model: "openai-compatible:none",
      })
    ).id;
    await env.services.agent.log.append(extra, "user_message", { text: "hi", authorName: "Olive" }, null);
    const mia = await member("Mia");
    const client = trpcOver(mia.cookie);
    const events = watch((handlers) =>
      client.trpc.session.events.subscribe({ sessionId: extra, afterSeq: 0 }, handlers),
    );
    await until(() => events.state.data > 0, "the session's events", 5_000);
    await owner.session.delete({ sessionId: extra });
    await until(() => !!events.state.end, "the event stream to end", 2_000);
    expect(events.state.end!.code).toBe("NOT_FOUND");
    client.close();
  });
});
