import { createTRPCClient, createWSClient, httpLink, wsLink } from "@trpc/client";
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
import { languageSocketUrl } from "@/lib/language-protocol";
import { liveDocSocketUrl } from "@/lib/live-doc-protocol";
import { until } from "@/server/test/until";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A login that simply reaches its expiry, tried as whoever finds a browser left open would: every
// connection opened under it (a tRPC subscription, a terminal, a language server, a live document)
// is held open past the login's end and used. Nothing publishes an access change then; each must
// be closed within a second of the expiry, and nothing sent after may work. A login renewed by
// use meanwhile keeps them. The real server, login sessions and access-change bus.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let teamId: string;
let projectId: string;
let sessionId: string;
let terminalId: string;
const callerFor = createCallerFactory(appRouter);

/** A member of the team whose login never renews by use and ends `ms` from now. */
async function memberWithLogin(name: string, ms: number) {
  const person = await signUpPerson(env.services, name, { rememberMe: false });
  await addMember(env.services.db, teamId, person.id, "member");
  const expiresAt = new Date(Date.now() + ms);
  await env.services.db.loginSession.updateMany({ where: { userId: person.id }, data: { expiresAt } });
  return { ...person, expiresAt: expiresAt.getTime() };
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

/** The session's event stream: how many events came, and the error it ended with, and when. */
function watchEvents(client: ReturnType<typeof trpcOver>) {
  const state = { data: 0, end: null as { code: string; at: number } | null };
  const subscription = client.trpc.session.events.subscribe(
    { sessionId, afterSeq: 0 },
    {
      onData: () => void state.data++,
      onError: (error) =>
        (state.end = { code: (error.data as { code?: string } | undefined)?.code ?? error.message, at: Date.now() }),
    },
  );
  return { state, unsubscribe: () => subscription.unsubscribe() };
}

/** A raw WebSocket with the login's cookie: what it received, and its close code and time. */
async function open(url: string, cookie: string) {
  const ws = new WebSocket(url, { headers: { cookie, origin: base } });
  // Listened to before it opens: the server's first message may come with the upgrade's answer.
  const seen = { output: "", closed: null as { code: number; at: number } | null };
  ws.on("message", (data) => (seen.output += data.toString()));
  ws.on("close", (code) => (seen.closed = { code, at: Date.now() }));
  await new Promise<void>((resolve, reject) => {
    ws.on("open", () => resolve());
    ws.on("unexpected-response", (_req, res) => reject(new Error(`upgrade of ${url} refused: ${res.statusCode}`)));
  });
  return { ws, seen };
}

/** The status an upgrade with this cookie gets (101: opened, and closed again at once). */
function upgradeStatus(url: string, cookie: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { cookie, origin: base } });
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => resolve(0));
  });
}

const host = () => ({ protocol: "http:", host: new URL(base).host });
const urls = () => ({
  terminal: terminalSocketUrl(host(), projectId, terminalId),
  language: languageSocketUrl(host(), projectId, "typescript"),
  liveDoc: liveDocSocketUrl(host(), projectId, "notes.txt"),
});

beforeAll(async () => {
  env = await createTestServices();
  server = await startServer(
    { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } },
    { dir: process.cwd(), pages: false },
  );
  base = server.url;
  const olive = await signUpPerson(env.services, "Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const db = env.services.db;
  teamId = (await createTeam(db, { name: "Acme", ownerId: olive.id })).id;
  const owner = callerFor(env.context((await findUser(db, olive.id))!));
  projectId = (await owner.project.create({ name: "Expiry", teamId })).id;
  await (await env.services.files.open(projectId)).write("notes.txt", "shared notes\n");
  sessionId = (
    await createSession(db, { projectId, title: "Expiry", authorId: olive.id, model: "openai-compatible:none" })
  ).id;
  await env.services.agent.log.append(sessionId, "user_message", { text: "hello", authorName: "Olive" }, olive.id);
  terminalId = (await owner.terminal.create({ projectId, cols: 80, rows: 24 })).id;
  await owner.terminal.shareInput({ projectId, terminalId, shared: true });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("a login that reaches its expiry ends what is open under it", () => {
  it("closes its tRPC subscription, terminal, language and live-document sockets within a second of the expiry; nothing after works", async () => {
    const followedBefore = env.services.accessChanges.followedCredentials();
    const eve = await memberWithLogin("Eve", 6_000);
    const client = trpcOver(eve.cookie);
    const events = watchEvents(client);
    const terminal = await open(urls().terminal, eve.cookie);
    const language = await open(urls().language, eve.cookie);
    const liveDoc = await open(urls().liveDoc, eve.cookie);
    await until(() => events.state.data > 0, "the session's events", 5_000);
    terminal.ws.send(JSON.stringify({ type: "input", data: "echo eve-$((40+2))\r" }));
    await until(() => terminal.seen.output.includes("eve-42"), "the terminal's output", 5_000);
    await until(() => liveDoc.seen.output.length > 0, "the live document's first sync", 5_000);
    expect(Date.now()).toBeLessThan(eve.expiresAt);
    // One timer for the login, however many connections are open under it.
    expect(env.services.accessChanges.followedCredentials()).toBe(followedBefore + 1);

    const sockets = { terminal, language, liveDoc };
    await until(
      () => !!events.state.end && Object.values(sockets).every((s) => !!s.seen.closed),
      "everything open under the login to end",
      eve.expiresAt - Date.now() + 3_000,
    );
    expect(events.state.end!.code).toBe("UNAUTHORIZED");
    for (const at of [events.state.end!.at, ...Object.values(sockets).map((s) => s.seen.closed!.at)]) {
      expect(at).toBeGreaterThanOrEqual(eve.expiresAt);
      expect(at - eve.expiresAt).toBeLessThan(1_000);
    }
    for (const socket of Object.values(sockets)) expect(socket.seen.closed!.code).toBe(4403);

    // The same tRPC WebSocket answers nothing more, and the cookie opens no new socket.
    await expect(client.trpc.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    await expect(client.trpc.team.create.mutate({ name: "After expiry" })).rejects.toMatchObject({
      data: { code: "UNAUTHORIZED" },
    });
    for (const url of Object.values(urls())) expect(await upgradeStatus(url, eve.cookie)).toBe(401);

    // The login's timer goes with its last connection.
    client.close();
    await until(
      () => env.services.accessChanges.followedCredentials() === followedBefore,
      "the login to be followed no more",
      5_000,
    );
  }, 60_000);

  it("refuses an HTTP call from the moment of the expiry, even right after an answer was kept for the cookie", async () => {
    const ivy = await memberWithLogin("Ivy", 2_000);
    const browser = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: { cookie: ivy.cookie } })],
    });
    await sleep(ivy.expiresAt - Date.now() - 700);
    expect((await browser.account.me.query())?.id).toBe(ivy.id);
    await sleep(ivy.expiresAt - Date.now() + 20);
    await expect(browser.project.list.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
  });

  it("a login renewed by use keeps its connections open past the expiry first read", async () => {
    const ren = await memberWithLogin("Ren", 2_000);
    const client = trpcOver(ren.cookie);
    const events = watchEvents(client);
    const terminal = await open(urls().terminal, ren.cookie);
    const liveDoc = await open(urls().liveDoc, ren.cookie);
    await until(() => events.state.data > 0, "the session's events", 5_000);
    // Using the IDE renews the login (better-auth moves its expiry on: server/auth/auth.ts).
    await env.services.db.loginSession.updateMany({
      where: { userId: ren.id },
      data: { expiresAt: new Date(Date.now() + 3_600_000) },
    });
    await sleep(ren.expiresAt - Date.now() + 1_500);

    expect(events.state.end).toBeNull();
    expect(terminal.seen.closed).toBeNull();
    expect(liveDoc.seen.closed).toBeNull();
    expect((await client.trpc.account.me.query())?.id).toBe(ren.id);
    terminal.ws.send(JSON.stringify({ type: "input", data: "echo ren-$((40+3))\r" }));
    await until(() => terminal.seen.output.includes("ren-43"), "the terminal's output after the first expiry", 5_000);
    terminal.ws.close();
    liveDoc.ws.close();
    events.unsubscribe();
    client.close();
  }, 30_000);
});
