import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { createSession } from "@/server/db/repositories/sessions";
import { setUserDisabled } from "@/server/db/repositories/users";
import { createTestServices } from "@/server/test/services";

// A share link is its maker's word: it shows a session only while its maker could still show it.
// Mallory, a member about to be removed, makes view links to her team's sessions and keeps them
// open; after her removal, her demotion to viewer or her account's disabling, no link of hers
// shows anything more, and what she holds open through one ends. A link made by someone still in
// the team goes on.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type User = NonNullable<Context["user"]>;
const as = (user: User | null, shareToken?: string) =>
  createCaller({ ...env.context(user), ...(shareToken ? { shareToken } : {}), clientIp: `test-${Math.random()}` });

beforeAll(async () => {
  env = await createTestServices();
}, 60_000);
afterAll(() => env?.dispose());

async function sessionWithLinks() {
  const owner = await env.createUser();
  const mallory = await env.createUser();
  const team = await as(owner).team.create({ name: `Crew ${Math.random()}` });
  const invite = await as(owner).team.createInvite({ teamId: team.id, role: "member" });
  await as(mallory).team.acceptInvite({ token: invite.path.slice(6) });
  const project = await as(owner).project.create({ name: "Secret plans", teamId: team.id });
  const session = await createSession(env.services.db, {
    projectId: project.id,
    title: "Q3 acquisition",
    authorId: owner.id,
    model: "openai-compatible:none",
  });
  const hers = await as(mallory).share.create({ sessionId: session.id, scope: "view", label: "mine" });
  const owners = await as(owner).share.create({ sessionId: session.id, scope: "view", label: "client" });
  return { owner, mallory, team, sessionId: session.id, hers: hers.token, owners: owners.token };
}

/** Whether a guest holding `token` still sees the session. */
async function shows(token: string, sessionId: string) {
  const resolved = await as(null).share.resolve({ token });
  const got = await as(null, token)
    .session.get({ sessionId })
    .then(() => true)
    .catch(() => false);
  return resolved.state === "active" || got;
}

/** An open subscription to the session's events through the link: resolves with how it ended. */
async function watch(token: string, sessionId: string) {
  const events = (await as(null, token).session.events({ sessionId })) as AsyncIterableIterator<unknown>;
  const ended = (async () => {
    try {
      for await (const _ of events) {
        /* the log so far and what comes */
      }
      return "done";
    } catch (error) {
      return (error as { code?: string }).code ?? "error";
    }
  })();
  return { ended, stop: () => events.return?.() };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), ms))]);

it("a removed member's link shows nothing more, and what it holds open ends", async () => {
  const { owner, mallory, team, sessionId, hers, owners } = await sessionWithLinks();
  expect(await shows(hers, sessionId)).toBe(true);
  const open = await watch(hers, sessionId);
  const othersOpen = await watch(owners, sessionId);

  await as(owner).team.removeMember({ teamId: team.id, userId: mallory.id });

  expect(await within(open.ended, 2_000)).toBe("FORBIDDEN");
  expect(await shows(hers, sessionId)).toBe(false);
  await expect(as(null, hers).share.files({ sessionId })).rejects.toMatchObject({ code: "FORBIDDEN" });
  // The owner's link to the same session is untouched; the list tells the two apart.
  expect(await shows(owners, sessionId)).toBe(true);
  const listed = await as(owner).share.list({ sessionId });
  expect(Object.fromEntries(listed.map((link) => [link.label, link.state]))).toEqual({
    mine: "ended",
    client: "active",
  });
  expect(await within(othersOpen.ended, 300)).toBe("still open");
  await othersOpen.stop();
});

it("a member demoted to viewer, or disabled, has links that show nothing more", async () => {
  const demoted = await sessionWithLinks();
  await as(demoted.owner).team.setRole({ teamId: demoted.team.id, userId: demoted.mallory.id, role: "viewer" });
  expect(await shows(demoted.hers, demoted.sessionId)).toBe(false);
  expect(await shows(demoted.owners, demoted.sessionId)).toBe(true);

  const disabled = await sessionWithLinks();
  await setUserDisabled(env.services.db, disabled.mallory.id, true);
  expect(await shows(disabled.hers, disabled.sessionId)).toBe(false);
  expect(await shows(disabled.owners, disabled.sessionId)).toBe(true);
});
