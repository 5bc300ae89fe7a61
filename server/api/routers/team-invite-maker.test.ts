import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { claimTeamInvite } from "@/server/db/repositories/teams";
import { setUserDisabled } from "@/server/db/repositories/users";
import { createTestServices } from "@/server/test/services";

// An invitation link is its maker's word: it lets someone in only while its maker could still let
// them in. Mallory, a team admin about to be removed, mints admin links (with no address, for
// whoever holds them) and keeps them; after her removal, her demotion or her account's disabling,
// none lets her, or anyone she hands it to, back in.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type User = NonNullable<Context["user"]>;
const as = (user: User) => createCaller({ ...env.context(user), clientIp: `test-${Math.random()}` });

beforeAll(async () => {
  env = await createTestServices();
}, 60_000);
afterAll(() => env?.dispose());

async function teamWithAdmin() {
  const owner = await env.createUser();
  const mallory = await env.createUser();
  const team = await as(owner).team.create({ name: `Crew ${Math.random()}` });
  const made = await as(owner).team.createInvite({ teamId: team.id, role: "admin" });
  await as(mallory).team.acceptInvite({ token: made.path.slice(6) });
  // Her back doors, made while she is an admin: one for herself, one for a friend's sign-up.
  const kept = await as(mallory).team.createInvite({ teamId: team.id, role: "admin" });
  const forSignUp = await as(mallory).team.createInvite({ teamId: team.id, role: "member" });
  return { owner, mallory, team, kept: kept.path.slice(6), forSignUp: forSignUp.path.slice(6) };
}

const roleIn = async (user: User, teamId: string) => (await as(user).team.list()).find((t) => t.id === teamId)?.role;

it("a removed admin's links let nobody in", async () => {
  const { owner, mallory, team, kept, forSignUp } = await teamWithAdmin();
  await as(owner).team.removeMember({ teamId: team.id, userId: mallory.id });

  expect(await as(mallory).team.inviteInfo({ token: kept })).toMatchObject({ ok: false });
  await expect(as(mallory).team.acceptInvite({ token: kept })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  expect(await roleIn(mallory, team.id)).toBeUndefined();
  // A sign-up with her link (server/auth/auth.ts claims it before the account exists).
  expect(await claimTeamInvite(env.services.db, forSignUp, "friend@example.com")).toMatchObject({ ok: false });
  expect((await as(owner).team.members({ teamId: team.id })).map((m) => m.id)).toEqual([owner.id]);
  // Nor are they listed as live for the team's admins.
  expect(await as(owner).team.invites({ teamId: team.id })).toEqual([]);
});

it("a demoted admin's links let nobody in", async () => {
  const { owner, mallory, team, kept } = await teamWithAdmin();
  await as(owner).team.setRole({ teamId: team.id, userId: mallory.id, role: "viewer" });
  await expect(as(mallory).team.acceptInvite({ token: kept })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  expect(await roleIn(mallory, team.id)).toBe("viewer");
});

it("a disabled admin's links let nobody in, and a link of an admin still in charge works", async () => {
  const accomplice = await env.createUser();
  const disabled = await teamWithAdmin();
  await setUserDisabled(env.services.db, disabled.mallory.id, true);
  await expect(as(accomplice).team.acceptInvite({ token: disabled.kept })).rejects.toMatchObject({
    code: "BAD_REQUEST",
  });
  expect(await roleIn(accomplice, disabled.team.id)).toBeUndefined();

  const still = await teamWithAdmin();
  await as(accomplice).team.acceptInvite({ token: still.kept });
  expect(await roleIn(accomplice, still.team.id)).toBe("admin");
});
