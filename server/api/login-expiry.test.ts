import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { signUpPerson } from "@/server/test/services";
import { addMember } from "@/server/db/repositories/teams";
import { clientsWith, type HeldProject, startHeldProject } from "@/server/test/held-open";
import { until } from "@/server/test/until";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A login that simply reaches its expiry, tried as whoever finds a browser left open would: every
// connection opened under it (a tRPC subscription, a terminal, a language server, a live document)
// is held open past the login's end and used. Nothing publishes an access change then; each must
// be closed within a second of the expiry, and nothing sent after may work. A login renewed by
// use meanwhile keeps them. The real server, login sessions and access-change bus.

let held: HeldProject;
let env: HeldProject["env"];
let base: string;
let teamId: string;
let sessionId: string;

/** A member of the team whose login never renews by use and ends `ms` from now. */
async function memberWithLogin(name: string, ms: number) {
  const person = await signUpPerson(env.services, name, { rememberMe: false });
  await addMember(env.services.db, teamId, person.id, "member");
  const expiresAt = new Date(Date.now() + ms);
  await env.services.db.loginSession.updateMany({ where: { userId: person.id }, data: { expiresAt } });
  return { ...person, expiresAt: expiresAt.getTime() };
}

const clients = (cookie: string) => clientsWith(base, { cookie, origin: base });
const trpcOver = (cookie: string) => clients(cookie).trpc();
/** The session's event stream: how many events came, and the error it ended with, and when. */
const watchEvents = (client: ReturnType<typeof trpcOver>) => clients("").watchEvents(client, sessionId);
/** A raw WebSocket with the login's cookie: what it received, and its close code and time. */
const open = (url: string, cookie: string) => clients(cookie).open(url);
/** The status an upgrade with this cookie gets (101: opened, and closed again at once). */
const upgradeStatus = (url: string, cookie: string) => clients(cookie).upgradeStatus(url);

const urls = () => held.urls;

beforeAll(async () => {
  held = await startHeldProject("Expiry");
  ({ env, base, teamId, sessionId } = held);
}, 60_000);

afterAll(() => held?.close());

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
