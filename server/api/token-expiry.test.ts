import { createTRPCClient, httpLink } from "@trpc/client";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { issueApiToken, issueTeamToken } from "@/server/auth/api-tokens";
import { signUpPerson } from "@/server/test/services";
import { addMember } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { clientsWith, type HeldProject, startHeldProject } from "@/server/test/held-open";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { until } from "@/server/test/until";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// API tokens reaching their expiry or taken away, tried as whoever holds a leaked token would: a
// script keeps a tRPC subscription, a terminal, a language server and a live document open under
// the token past its end and goes on using them. A token's expiry publishes no access change; each
// connection must be closed within a second of it, and nothing sent after may work, over HTTP
// neither (not even with an answer kept a moment before). Revoking a personal or a team token,
// removing the member or disabling them ends what is open under their token at once. The real
// server, tokens and access-change bus.

let held: HeldProject;
let env: HeldProject["env"];
let base: string;
let teamId: string;
let projectId: string;
let sessionId: string;
let owner: HeldProject["owner"];
const callerFor = createCallerFactory(appRouter);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A member of the team (a person, never signed in here) with a token that ends `ms` from now. */
async function memberWithToken(name: string, ms: number) {
  const person = await signUpPerson(env.services, name);
  await addMember(env.services.db, teamId, person.id, "member");
  const issued = await issueApiToken(env.services.db, {
    userId: person.id,
    name: `${name}'s script`,
    scopes: ["read", "write"],
    expiresInDays: 1,
  });
  const expiresAt = await expireIn(issued.row.id, ms);
  return { id: person.id, token: issued.token, tokenId: issued.row.id, expiresAt };
}

async function expireIn(tokenId: string, ms: number) {
  const expiresAt = new Date(Date.now() + ms);
  await env.services.db.apiToken.update({ where: { id: tokenId }, data: { expiresAt } });
  return expiresAt.getTime();
}

const clients = (token: string) => clientsWith(base, bearer(token));
const trpcWith = (token: string) => clients(token).trpc();

const overHttp = (token: string) =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: bearer(token) })],
  });

/** The session's event stream: how many events came, and the error it ended with, and when. */
const watchEvents = (client: ReturnType<typeof trpcWith>) => clients("").watchEvents(client, sessionId);
/** A raw WebSocket with the token: what it received, and its close code and time. */
const open = (url: string, token: string) => clients(token).open(url);
/** The status an upgrade with this token gets (101: opened, and closed again at once). */
const upgradeStatus = (url: string, token: string) => clients(token).upgradeStatus(url);

/** The code a call fails with, or "ok". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return (error as { data?: { code?: string } }).data?.code ?? String(error);
  }
}

const urls = () => held.urls;

/** Everything a script may hold open under a token: a session's events, a terminal, a language server, a live document. */
async function holdOpen(token: string) {
  const client = trpcWith(token);
  const events = watchEvents(client);
  const sockets = {
    terminal: await open(urls().terminal, token),
    language: await open(urls().language, token),
    liveDoc: await open(urls().liveDoc, token),
  };
  await until(() => events.state.data > 0, "the session's events", 5_000);
  await until(() => sockets.liveDoc.seen.output.length > 0, "the live document's first sync", 5_000);
  const ended = () => !!events.state.end && Object.values(sockets).every((s) => !!s.seen.closed);
  const endTimes = () => [events.state.end!.at, ...Object.values(sockets).map((s) => s.seen.closed!.at)];
  return { client, events, sockets, ended, endTimes };
}

beforeAll(async () => {
  held = await startHeldProject("Tokens");
  ({ env, base, teamId, owner, projectId, sessionId } = held);
}, 60_000);

afterAll(() => held?.close());

describe("an API token that reaches its expiry ends what is open under it", () => {
  it("closes its tRPC subscription, terminal, language and live-document sockets within a second of the expiry; nothing after works", async () => {
    const followedBefore = env.services.accessChanges.followedCredentials();
    const eve = await memberWithToken("Eve", 6_000);
    const held = await holdOpen(eve.token);
    held.sockets.terminal.ws.send(JSON.stringify({ type: "input", data: "echo eve-$((40+2))\r" }));
    await until(() => held.sockets.terminal.seen.output.includes("eve-42"), "the terminal's output", 5_000);
    expect(Date.now()).toBeLessThan(eve.expiresAt);
    // One timer for the token, however many connections are open under it.
    expect(env.services.accessChanges.followedCredentials()).toBe(followedBefore + 1);

    await until(held.ended, "everything open under the token to end", eve.expiresAt - Date.now() + 3_000);
    expect(held.events.state.end!.code).toBe("UNAUTHORIZED");
    for (const at of held.endTimes()) {
      expect(at).toBeGreaterThanOrEqual(eve.expiresAt);
      expect(at - eve.expiresAt).toBeLessThan(1_000);
    }
    for (const socket of Object.values(held.sockets)) expect(socket.seen.closed!.code).toBe(4403);

    // The same tRPC WebSocket answers nothing more, and the token opens no new socket.
    await expect(held.client.trpc.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    await expect(held.client.trpc.team.create.mutate({ name: "After expiry" })).rejects.toMatchObject({
      data: { code: "UNAUTHORIZED" },
    });
    for (const url of Object.values(urls())) expect(await upgradeStatus(url, eve.token)).toBe(401);
    expect(await outcome(overHttp(eve.token).project.list.query())).toBe("UNAUTHORIZED");

    // The token's timer goes with its last connection.
    held.client.close();
    await until(
      () => env.services.accessChanges.followedCredentials() === followedBefore,
      "the token to be followed no more",
      5_000,
    );
  }, 60_000);

  it("refuses an HTTP call from the moment of the expiry, even right after an answer was kept for the token", async () => {
    const ivy = await memberWithToken("Ivy", 2_000);
    const script = overHttp(ivy.token);
    await sleep(ivy.expiresAt - Date.now() - 700);
    expect(await outcome(script.project.list.query())).toBe("ok");
    await sleep(ivy.expiresAt - Date.now() + 20);
    expect(await outcome(script.project.list.query())).toBe("UNAUTHORIZED");
  });

  it("cuts a download under way at the token's expiry, and refuses the next one", async () => {
    const root = (await env.services.files.open(projectId)).root;
    await fs.writeFile(path.join(root, "big.bin"), Buffer.alloc(64 * 1024 * 1024, 7));
    const max = await memberWithToken("Max", 2_000);
    const url = `${base}/api/projects/${projectId}/download?path=big.bin`;
    const state = { status: 0, received: 0, complete: false, closed: false };
    let response!: http.IncomingMessage;
    await new Promise<void>((resolve, reject) => {
      const request = http.get(url, { headers: bearer(max.token) }, (res) => {
        response = res;
        state.status = res.statusCode ?? 0;
        res.once("data", () => {
          res.pause(); // a slow reader: most of the file is still to come
          resolve();
        });
        res.on("data", (chunk: Buffer) => void (state.received += chunk.length));
        res.on("close", () => {
          state.complete = res.complete;
          state.closed = true;
        });
        res.on("error", () => {});
      });
      request.on("error", reject);
    });
    expect(state.status).toBe(200);
    // Past the expiry, the server has cut the transfer: reading on gets only what was already sent.
    await sleep(max.expiresAt - Date.now() + 1_000);
    response.resume();
    await until(() => state.closed, "the download's end", 5_000);
    expect(state.complete).toBe(false);
    expect(state.received).toBeLessThan(64 * 1024 * 1024);
    expect((await fetch(url, { headers: bearer(max.token) })).status).toBe(401);
    await fs.rm(path.join(root, "big.bin"));
  }, 20_000);

  it("closes a team token's terminal at its expiry", async () => {
    const team = await issueTeamToken(env.services.db, { teamId, name: "ci", scopes: ["read"], expiresInDays: 1 });
    const expiresAt = await expireIn(team.row.id, 2_000);
    const terminal = await open(urls().terminal, team.token);
    await until(() => !!terminal.seen.closed, "the team token's terminal to close", expiresAt - Date.now() + 3_000);
    expect(terminal.seen.closed!.at - expiresAt).toBeLessThan(1_000);
    expect(terminal.seen.closed!.code).toBe(4403);
  }, 20_000);
});

describe("a token taken away ends what is open under it at once", () => {
  it("revoking a personal token closes its subscription and sockets", async () => {
    const ada = await memberWithToken("Ada", 3_600_000);
    const held = await holdOpen(ada.token);
    const asAda = callerFor(env.context((await findUser(env.services.db, ada.id))!));
    const revokedAt = Date.now();
    await asAda.apiToken.revoke({ id: ada.tokenId });
    await until(held.ended, "everything open under the revoked token to end", 3_000);
    for (const at of held.endTimes()) expect(at - revokedAt).toBeLessThan(1_000);
    expect(await outcome(overHttp(ada.token).project.list.query())).toBe("UNAUTHORIZED");
    expect(await upgradeStatus(urls().terminal, ada.token)).toBe(401);
    held.client.close();
  }, 30_000);

  it("revoking a team token closes its terminal and live document", async () => {
    const team = await issueTeamToken(env.services.db, {
      teamId,
      name: "deploy",
      scopes: ["read", "write"],
      expiresInDays: 1,
    });
    const terminal = await open(urls().terminal, team.token);
    const liveDoc = await open(urls().liveDoc, team.token);
    const revokedAt = Date.now();
    await owner.apiToken.teamRevoke({ teamId, id: team.row.id });
    await until(() => !!terminal.seen.closed && !!liveDoc.seen.closed, "the team token's sockets to close", 3_000);
    for (const socket of [terminal, liveDoc]) expect(socket.seen.closed!.at - revokedAt).toBeLessThan(1_000);
    expect(await outcome(overHttp(team.token).project.list.query())).toBe("UNAUTHORIZED");
  }, 30_000);

  it("removing the member or disabling them closes what their token holds open", async () => {
    const kim = await memberWithToken("Kim", 3_600_000);
    const removed = await holdOpen(kim.token);
    await owner.team.removeMember({ teamId, userId: kim.id });
    await until(removed.ended, "Kim's connections to end with the membership", 3_000);
    removed.client.close();

    const lee = await memberWithToken("Lee", 3_600_000);
    const disabled = await holdOpen(lee.token);
    const admin = await env.createUser("admin");
    await callerFor(env.context(admin)).account.setUserDisabled({ userId: lee.id, disabled: true });
    await until(disabled.ended, "Lee's connections to end with the account", 3_000);
    expect(disabled.events.state.end!.code).toBe("UNAUTHORIZED");
    expect(await outcome(overHttp(lee.token).project.list.query())).toBe("UNAUTHORIZED");
    disabled.client.close();
  }, 30_000);
});
