import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createSession, deleteSession } from "@/server/db/repositories/sessions";
import { setSetting } from "@/server/db/repositories/settings";
import { createTeam } from "@/server/db/repositories/teams";
import { PREVIEW_COOKIE } from "@/server/preview/preview-headers";
import { createPreviewHandlers } from "@/server/preview/preview-server";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { until } from "@/server/test/until";

// A person's preview session lasts as long as the Tandem login it was opened from, tried as the
// next person at a shared computer would: they sign out (or an admin revokes their logins, or
// disables the account), and the old preview cookie is replayed for a page and for hot reload's
// WebSocket. The real gate, login sessions and access-change bus; a dev server on loopback.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let dev: http.Server;
let proxy: http.Server;
let proxyPort: number;
const PORT = 5173;

beforeAll(async () => {
  env = await createTestServices();
  await setSetting(env.services.db, "signupMode", "open");
  // The app: answers any page, and keeps any WebSocket open (hot reload's channel).
  dev = http.createServer((_req, res) => res.end("app page"));
  dev.on("upgrade", (req, socket) => {
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  });
  await new Promise<void>((resolve) => dev.listen(0, "127.0.0.1", resolve));
  const devPort = (dev.address() as AddressInfo).port;
  const { previews, previewGate } = env.services;
  const handlers = createPreviewHandlers({
    access: previews.access,
    domain: previews.domain,
    secure: false,
    admits: previewGate.admits,
    spendEntry: previewGate.spendEntry,
    link: previewGate.link,
    onAccessEnd: previewGate.onAccessEnd,
    connect: () =>
      new Promise((resolve, reject) => {
        const socket = net.connect(devPort, "127.0.0.1", () => resolve(socket));
        socket.once("error", reject);
      }),
  });
  proxy = http.createServer((req, res) => void handlers.request(req, res));
  proxy.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
  previews.listening(proxyPort);
}, 120_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  dev?.closeAllConnections();
  dev?.close();
  await env?.dispose();
});

/** A person signed up through the server's own auth, owning a project: their login cookie and the project. */
async function personWithProject(name: string) {
  const person = await signUpPerson(env.services, name);
  const ctx = await createContext(env.services, new Headers({ cookie: person.cookie }));
  const team = await createTeam(env.services.db, { name: `${name} ${randomUUID().slice(0, 6)}`, ownerId: person.id });
  const project = await createCaller(ctx).project.create({ name: `${name}'s app`, teamId: team.id });
  return { ...person, projectId: project.id };
}

/** What an authenticated IDE request gets: the entry link, made for the login session of `cookie`. */
async function entryLink(cookie: string, projectId: string): Promise<URL> {
  const ctx = await createContext(env.services, new Headers({ cookie }));
  expect(ctx.loginSessionId).toBeTruthy();
  const url = env.services.previews.entryUrl(projectId, PORT, ctx.user!.id, ctx.loginSessionId!);
  return new URL(url!);
}

const get = (url: URL, cookie?: string) =>
  new Promise<{ status: number; setCookie: string | null; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: proxyPort,
        path: `${url.pathname}${url.search}`,
        headers: { host: url.host, ...(cookie ? { cookie } : {}) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, setCookie: res.headers["set-cookie"]?.[0] ?? null, body }),
        );
      },
    );
    req.on("error", (e) => reject(new Error(`GET ${url.pathname} ${(e as Error).message} reused=${req.reusedSocket}`)));
    req.end();
  });

/** Enters the preview through the link: the preview session's cookie. */
async function enter(link: URL): Promise<string> {
  console.error("ENTER", link.host);
  const answer = await get(link);
  expect(answer.status).toBe(302);
  return answer.setCookie!.split(";")[0]!;
}

/** Hot reload's WebSocket on the preview with this cookie: open, or the status it was refused with. */
function hotReload(link: URL, cookie: string): Promise<{ socket: WebSocket } | { refused: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${proxyPort}/hmr`, {
      headers: { host: link.host, cookie },
      origin: link.origin,
    });
    socket.on("open", () => resolve({ socket }));
    socket.on("unexpected-response", (_req, res) => resolve({ refused: res.statusCode! }));
    socket.on("error", (e) => reject(new Error(`WS ${e.message}`)));
  });
}

const page = (link: URL) => new URL("/", link);

describe("a person's preview session ends with their login", () => {
  it("signing out refuses the old preview cookie at once, for pages and WebSockets, and closes open ones", async () => {
    const ada = await personWithProject("Ada");
    const link = await entryLink(ada.cookie, ada.projectId);
    const preview = await enter(link);
    expect((await get(page(link), preview)).status).toBe(200);
    const open = await hotReload(link, preview);
    if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
    let closed = false;
    open.socket.on("close", () => (closed = true));

    await env.services.auth.api.signOut({ headers: new Headers({ cookie: ada.cookie }) });

    await until(async () => closed, "the open hot-reload WebSocket is closed at sign-out", 5_000);
    // The next person at the keyboard replays the cookie.
    expect((await get(page(link), preview)).status).toBe(403);
    expect(await hotReload(link, preview)).toEqual({ refused: 403 });
  });

  it("revoking the login sessions refuses the preview opened from them; another login's preview stays", async () => {
    const bob = await personWithProject("Bob");
    const first = await entryLink(bob.cookie, bob.projectId);
    const firstPreview = await enter(first);
    // Bob signs in a second time (another browser) and opens the preview there too.
    const email = (await env.services.db.user.findUniqueOrThrow({ where: { id: bob.id } })).email;
    const signIn = await env.services.auth.api.signInEmail({
      body: { email, password: "correct-horse-battery" },
      asResponse: true,
    });
    const second = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const secondPreview = await enter(await entryLink(second, bob.projectId));
    expect((await get(page(first), firstPreview)).status).toBe(200);
    expect((await get(page(first), secondPreview)).status).toBe(200);
    const sockets = await Promise.all([hotReload(first, firstPreview), hotReload(first, secondPreview)]);
    const closed = sockets.map((open) => {
      if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
      const state = { closed: false };
      open.socket.on("close", () => (state.closed = true));
      return state;
    });

    // From the second browser, "sign out the other sessions": the first browser's preview ends, the second's stays.
    await env.services.auth.api.revokeOtherSessions({ headers: new Headers({ cookie: second }) });
    await until(async () => closed[0]!.closed, "the first browser's hot reload is closed", 5_000);
    expect((await get(page(first), firstPreview)).status).toBe(403);
    expect(await hotReload(first, firstPreview)).toEqual({ refused: 403 });
    expect((await get(page(first), secondPreview)).status).toBe(200);
    expect(closed[1]!.closed).toBe(false);

    // Then all of them.
    await env.services.auth.api.revokeSessions({ headers: new Headers({ cookie: second }) });
    expect((await get(page(first), secondPreview)).status).toBe(403);
  });

  it("an account disabled by an admin loses its open previews at once", async () => {
    const eve = await personWithProject("Eve");
    const link = await entryLink(eve.cookie, eve.projectId);
    const preview = await enter(link);
    const open = await hotReload(link, preview);
    if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
    let closed = false;
    open.socket.on("close", () => (closed = true));
    const admin = await env.createUser("admin");
    await createCaller(env.context(admin)).account.setUserDisabled({ userId: eve.id, disabled: true });
    await until(async () => closed, "the open hot-reload WebSocket is closed when the account is disabled", 5_000);
    expect((await get(page(link), preview)).status).toBe(403);
    expect(await hotReload(link, preview)).toEqual({ refused: 403 });
  });

  it("a login that reaches its expiry ends its open previews at that time, without a request to notice", async () => {
    const uma = await personWithProject("Uma");
    // A short login lifetime: this login ends in two seconds.
    const ctx = await createContext(env.services, new Headers({ cookie: uma.cookie }));
    const expiresAt = new Date(Date.now() + 2_000);
    await env.services.db.loginSession.update({ where: { id: ctx.loginSessionId! }, data: { expiresAt } });
    const link = await entryLink(uma.cookie, uma.projectId);
    const preview = await enter(link);
    const open = await hotReload(link, preview);
    if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
    let closedAt = 0;
    open.socket.on("close", () => (closedAt = Date.now()));
    expect((await get(page(link), preview)).status).toBe(200);

    await until(async () => closedAt > 0, "the open hot-reload WebSocket is closed when the login expires", 6_000);
    expect(closedAt).toBeGreaterThanOrEqual(expiresAt.getTime());
    expect((await get(page(link), preview)).status).toBe(403);
    expect(await hotReload(link, preview)).toEqual({ refused: 403 });
  });

  it("a login kept alive meanwhile keeps its open previews past the expiry first seen", async () => {
    const lin = await personWithProject("Lin");
    const ctx = await createContext(env.services, new Headers({ cookie: lin.cookie }));
    const where = { id: ctx.loginSessionId! };
    await env.services.db.loginSession.update({ where, data: { expiresAt: new Date(Date.now() + 1_500) } });
    const link = await entryLink(lin.cookie, lin.projectId);
    const preview = await enter(link);
    const open = await hotReload(link, preview);
    if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
    let closed = false;
    open.socket.on("close", () => (closed = true));
    // Using the IDE renews the login (better-auth moves its expiry on): the preview goes on.
    await env.services.db.loginSession.update({ where, data: { expiresAt: new Date(Date.now() + 3_600_000) } });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(closed).toBe(false);
    expect((await get(page(link), preview)).status).toBe(200);
    open.socket.close();
  });

  it("an entry link made without a login session opens nothing", async () => {
    const kim = await personWithProject("Kim");
    const url = new URL(env.services.previews.entryUrl(kim.projectId, PORT, kim.id, "not-a-login-session")!);
    expect((await get(url)).status).toBe(403);
  });
});

describe("the agent's browser's preview session", () => {
  it("lasts as long as its agent session, not the person's login, and never opens another project's port", async () => {
    const ada = await personWithProject("Agatha");
    const { db, previews, accessChanges } = env.services;
    const agent = await createSession(db, { projectId: ada.projectId, title: "fix", authorId: ada.id, model: "m" });
    const made = previews.sessionFor(ada.projectId, PORT, ada.id, agent.id)!;
    const link = new URL(made.origin);
    const preview = `${PREVIEW_COOKIE}=${made.cookie.value}`;
    expect((await get(page(link), preview)).status).toBe(200);
    const open = await hotReload(link, preview);
    if (!("socket" in open)) throw new Error(`hot reload refused: ${open.refused}`);
    let closed = false;
    open.socket.on("close", () => (closed = true));

    // The person signing out of their browser leaves the agent's own browser working.
    await env.services.auth.api.signOut({ headers: new Headers({ cookie: ada.cookie }) });
    expect((await get(page(link), preview)).status).toBe(200);
    expect(closed).toBe(false);

    // Its session deleted (as session.delete does): the browser's preview ends at once.
    await deleteSession(db, agent.id);
    accessChanges.publish({ kind: "session", sessionId: agent.id });
    await until(async () => closed, "the agent browser's open WebSocket is closed with its session", 5_000);
    expect((await get(page(link), preview)).status).toBe(403);

    // A session of the agent's of another project names nothing here.
    const other = await personWithProject("Otto");
    const elsewhere = await createSession(db, {
      projectId: other.projectId,
      title: "x",
      authorId: other.id,
      model: "m",
    });
    const forged = previews.sessionFor(ada.projectId, PORT, ada.id, elsewhere.id)!;
    expect((await get(page(link), `${PREVIEW_COOKIE}=${forged.cookie.value}`)).status).toBe(403);
  });
});
