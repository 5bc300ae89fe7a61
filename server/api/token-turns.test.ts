import { createTRPCClient, httpLink } from "@trpc/client";
import fs from "node:fs/promises";
import path from "node:path";
import superjson from "superjson";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { ScriptedReply } from "@/e2e/fixtures/model-server/server";
import type { SessionEvent } from "@/lib/session-events";
import type { AppRouter } from "@/server/api/root";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { issueApiToken } from "@/server/auth/api-tokens";
import { addMember } from "@/server/db/repositories/teams";
import { setSessionTurnToken } from "@/server/db/repositories/turn-standing";
import { startServer, type RunningServer } from "@/server/start-server";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";

// Agent turns asked for with an API token, tried as whoever holds a leaked token would: the token
// starts a long turn (a scripted model that keeps calling tools) through the real server, and its
// owner revokes it, or it reaches its expiry. The turn must stop within a bound, as Stop stops it
// (its end in the session's log, saying why), and nothing asked under the dead token may run
// later: an approval answered afterwards, a message left for the next start; a message it sends
// into a turn already running binds that turn to it; a workflow run started with the token stops too. A turn asked for from
// a browser login goes on when its person signs out, and stops when they leave the team.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let server: RunningServer;
const callerFor = createCallerFactory(appRouter);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How soon a turn stops once its authority ended (one bus message and a few reads). */
const BOUND_MS = 2_000;

/** A model that calls a tool every step, for as long as the turn lets it. */
const toolLoop = (n = 400): ScriptedReply[] =>
  Array.from({ length: n }, (_, i) => ({
    toolCalls: [{ id: `read_${i}`, name: "slow_read", arguments: { name: `part ${i}` } }],
  }));

beforeAll(async () => {
  h = await createAgentHarness({ extensions: {} });
  server = await startServer(
    { ...h.env.services, config: { ...h.env.services.config, host: "127.0.0.1", port: 0 } },
    { dir: process.cwd(), pages: false },
  );
  await h.caller.agent.updateSettings({ projectId: h.project.id, stepLimit: 500 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await h?.dispose();
});

beforeEach(() => h.model.load({ replies: [] }));

/** A member of the project's team with a token (run scope) that lasts `ms`; her browser is an in-process caller. */
async function memberWithToken(name: string, ms = 86_400_000) {
  const db = h.env.services.db;
  const person = await h.env.createUser("user");
  await addMember(db, h.project.teamId, person.id, "member");
  const issued = await issueApiToken(db, {
    userId: person.id,
    name: `${name}'s script`,
    scopes: ["read", "write", "run"],
    expiresInDays: 1,
  });
  const expiresAt = Date.now() + ms;
  await db.apiToken.update({ where: { id: issued.row.id }, data: { expiresAt: new Date(expiresAt) } });
  const api = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.url}/api/trpc`,
        transformer: superjson,
        headers: { authorization: `Bearer ${issued.token}` },
      }),
    ],
  });
  const browser = callerFor(h.env.context(person));
  return { id: person.id, tokenId: issued.row.id, expiresAt, api, browser };
}

const results = async (sessionId: string) => only(await h.events(sessionId), "tool_result").length;
const finished = async (sessionId: string) =>
  (await h.events(sessionId)).find(
    (e): e is Extract<SessionEvent, { type: "turn_finished" }> => e.type === "turn_finished",
  );

/** Starts the long turn with `send`, and waits until it has run a few tools. */
async function longTurn(send: (sessionId: string) => Promise<unknown>, sessionId: string) {
  h.model.load({ replies: toolLoop() });
  await send(sessionId);
  await until(async () => (await results(sessionId)) >= 3, "the turn calling tools", 20_000);
}

/** The turn ends within the bound of `since`, cancelled with `why`, and nothing runs after it. */
async function stopsWithin(sessionId: string, since: number, why: RegExp) {
  await until(async () => !!(await finished(sessionId)), "the turn's end", BOUND_MS + 8_000);
  const end = (await finished(sessionId))!;
  expect(end.createdAt.getTime() - since).toBeLessThan(BOUND_MS);
  expect(end.payload).toMatchObject({ reason: "cancelled", message: expect.stringMatching(why) });
  await h.agent.idle(sessionId);
  const asked = h.model.requests.length;
  const ran = await results(sessionId);
  await sleep(600);
  expect(h.model.requests.length).toBe(asked);
  expect(await results(sessionId)).toBe(ran);
  const events = await h.events(sessionId);
  expect(events.at(-1)?.type === "status" || events.at(-1)?.type === "turn_finished").toBe(true);
  expect(await h.status(sessionId)).toBe("idle");
}

it("a turn a leaked token started stops when its owner revokes the token", { timeout: 60_000 }, async () => {
  const ada = await memberWithToken("Ada");
  const { id: sessionId } = await ada.api.session.create.mutate({ projectId: h.project.id });
  await longTurn((id) => ada.api.session.send.mutate({ sessionId: id, text: "read everything" }), sessionId);
  const revokedAt = Date.now();
  await ada.browser.apiToken.revoke({ id: ada.tokenId });
  await stopsWithin(sessionId, revokedAt, /API token .* revoked or has expired/);
});

it("a turn a token started stops at the token's expiry", { timeout: 60_000 }, async () => {
  const bea = await memberWithToken("Bea", 4_000);
  const { id: sessionId } = await bea.api.session.create.mutate({ projectId: h.project.id });
  await longTurn((id) => bea.api.session.send.mutate({ sessionId: id, text: "read everything" }), sessionId);
  expect(await finished(sessionId)).toBeUndefined();
  await stopsWithin(sessionId, bea.expiresAt, /API token .* revoked or has expired/);
});

it("an approval answered after the token was revoked does not run the call", { timeout: 60_000 }, async () => {
  const cy = await memberWithToken("Cy");
  const { id: sessionId } = await cy.api.session.create.mutate({ projectId: h.project.id });
  h.model.load({
    replies: [
      { toolCalls: [{ id: "deploy", name: "run", arguments: { command: "./deploy --prod" } }] },
      { text: "Deployed." },
    ],
  });
  await cy.api.session.send.mutate({ sessionId, text: "deploy it" });
  await until(async () => (await h.status(sessionId)) === "waiting_approval", "the approval request", 20_000);
  await cy.browser.apiToken.revoke({ id: cy.tokenId });
  // The project's owner, signed in, approves later: the call was asked for under the dead token.
  const approvalId = only(await h.events(sessionId), "approval_requested")[0]!.payload.approvalId;
  const asked = h.model.requests.length;
  await h.caller.approval.respond({ approvalId, decision: "approve" });
  await until(async () => !!(await finished(sessionId)), "the turn's end", 10_000);
  await h.agent.idle(sessionId);
  expect(h.toolLog.filter((t) => t.tool === "run")).toEqual([]);
  expect((await finished(sessionId))!.payload).toMatchObject({ reason: "cancelled" });
  expect(only(await h.events(sessionId), "tool_result").at(-1)!.payload).toMatchObject({ toolName: "run", ok: false });
  expect(h.model.requests.length).toBe(asked);
});

it("a message left for the next start under a token since revoked is not answered", { timeout: 60_000 }, async () => {
  const di = await memberWithToken("Di");
  const { id: sessionId } = await di.api.session.create.mutate({ projectId: h.project.id });
  // As the server left it when it stopped: the message stored, its turn not started.
  await setSessionTurnToken(h.env.services.db, sessionId, di.tokenId);
  await h.agent.log.append(sessionId, "user_message", { text: "rm -rf everything", authorName: "Di" }, di.id);
  await di.browser.apiToken.revoke({ id: di.tokenId });
  h.model.load({ replies: toolLoop(5) });
  const asked = h.model.requests.length;
  expect(await h.agent.answerLeftMessages()).toContain(sessionId);
  await until(async () => !!(await finished(sessionId)), "the turn's end", 10_000);
  await h.agent.idle(sessionId);
  expect((await finished(sessionId))!.payload).toMatchObject({ reason: "cancelled", steps: 0 });
  expect(h.model.requests.length).toBe(asked);
  // And it is answered: the next start does not take it up again.
  expect(await h.agent.answerLeftMessages()).not.toContain(sessionId);
});

it("a browser login's turn goes on when its person signs out, and stops when they leave the team", {
  timeout: 60_000,
}, async () => {
  const eve = await memberWithToken("Eve");
  const { id: sessionId } = await eve.browser.session.create({ projectId: h.project.id });
  await longTurn((id) => eve.browser.session.send({ sessionId: id, text: "read everything" }), sessionId);
  // A sign-out (of one tab, or a login's expiry) is a change about the person: the turn reads it and goes on.
  h.env.services.accessChanges.publish({ kind: "user", userId: eve.id });
  const before = await results(sessionId);
  await until(async () => (await results(sessionId)) >= before + 3, "the turn going on", 10_000);
  expect(await finished(sessionId)).toBeUndefined();
  const removedAt = Date.now();
  await h.caller.team.removeMember({ teamId: h.project.teamId, userId: eve.id });
  await stopsWithin(sessionId, removedAt, /no longer in the project's team/);
});

it("a token's message taken up by a turn already running binds that turn to the token", {
  timeout: 60_000,
}, async () => {
  const gus = await memberWithToken("Gus");
  const { id: sessionId } = await h.caller.session.create({ projectId: h.project.id });
  await longTurn((id) => h.caller.session.send({ sessionId: id, text: "read everything" }), sessionId);
  await gus.api.session.send.mutate({ sessionId, text: "and then some" });
  const before = await results(sessionId);
  await until(async () => (await results(sessionId)) >= before + 2, "the turn going on", 10_000);
  expect(await finished(sessionId)).toBeUndefined();
  const revokedAt = Date.now();
  await gus.browser.apiToken.revoke({ id: gus.tokenId });
  await stopsWithin(sessionId, revokedAt, /API token .* revoked or has expired/);
});

it("a background sub-agent a token's turn started stops when the token is revoked, after that turn ended", {
  timeout: 60_000,
}, async () => {
  const hal = await memberWithToken("Hal");
  const { id: sessionId } = await hal.api.session.create.mutate({ projectId: h.project.id });
  const delegate = { task: "Child-task: read every part", background: true, max_turns: 100 };
  h.model.load({
    replies: [
      { match: "start the background work", toolCalls: [{ id: "bg", name: "delegate", arguments: delegate }] },
      { match: "Started in the background", text: "It runs in the background." },
      ...toolLoop(300).map((reply, i) => ({ ...reply, match: i === 0 ? "Child-task" : "read part" })),
    ],
  });
  await hal.api.session.send.mutate({ sessionId, text: "start the background work" });
  await until(async () => !!(await finished(sessionId)), "the delegating turn's end", 20_000);
  const child = (await h.caller.session.get({ sessionId })).children[0]!.id;
  await until(async () => (await results(child)) >= 3, "the sub-agent calling tools", 20_000);
  const revokedAt = Date.now();
  await hal.browser.apiToken.revoke({ id: hal.tokenId });
  await stopsWithin(child, revokedAt, /API token .* revoked or has expired/);
});

it("a workflow run a token started stops when the token is revoked", { timeout: 60_000 }, async () => {
  const fay = await memberWithToken("Fay");
  const root = (await h.env.services.files.open(h.project.id)).root;
  await fs.mkdir(path.join(root, ".tandem/workflows"), { recursive: true });
  await fs.writeFile(
    path.join(root, ".tandem/workflows/read-all.yaml"),
    [
      "description: Read everything, in steps of a hundred calls",
      "steps:",
      ...["one", "two", "three"].flatMap((id) => [
        `  - id: ${id}`,
        "    prompt: 'Read all of it'",
        "    max_turns: 100",
      ]),
    ].join("\n"),
  );
  h.model.load({ replies: toolLoop() });
  const { sessionId } = await fay.api.extensions.runWorkflow.mutate({ projectId: h.project.id, workflow: "read-all" });
  const child = async () => (await h.caller.session.get({ sessionId })).children[0]?.id;
  await until(
    async () => {
      const id = await child();
      return !!id && (await results(id)) >= 3;
    },
    "the workflow's step calling tools",
    20_000,
  );
  const revokedAt = Date.now();
  await fay.browser.apiToken.revoke({ id: fay.tokenId });
  await stopsWithin(sessionId, revokedAt, /API token .* revoked or has expired/);
  expect(only(await h.events((await child())!), "turn_finished").at(-1)?.payload.reason).toBe("cancelled");
});
