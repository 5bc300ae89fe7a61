import { afterAll, beforeAll, expect, it } from "vitest";
import { parseTeamGroups, type SsoConfig } from "@/lib/sso";
import { applySsoGroups, teamGrants } from "@/server/auth/sso-groups";
import { addMember, createTeam, listTeamsForUser, renameTeam } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { createTestServices } from "@/server/test/services";

// The provider's groups against a real database: mapped teams follow them at every sign-on, teams
// nobody mapped stay as people set them, and an owner keeps ownership.

let env: Awaited<ReturnType<typeof createTestServices>>;
const sso: SsoConfig = {
  issuer: "http://127.0.0.1:1",
  clientId: "tandem",
  clientSecret: "secret",
  name: "Acme SSO",
  allowedDomains: ["acme.test"],
  groupsClaim: "groups",
  teamGroups: parseTeamGroups("platform=Platform:member, platform-leads=Platform:admin, web=Web team:viewer"),
  adminGroups: ["tandem-admins"],
};

beforeAll(async () => {
  env = await createTestServices();
}, 60_000);
afterAll(async () => env?.dispose());

const teamsOf = async (userId: string) =>
  Object.fromEntries(
    (await listTeamsForUser(env.services.db, userId)).filter((t) => !t.personal).map((t) => [t.name, t.role]),
  );

it("parses mappings and refuses a bad one with what is wrong", () => {
  expect(parseTeamGroups("a=Team: with colon:admin")).toEqual([
    { group: "a", team: "Team: with colon", role: "admin" },
  ]);
  expect(() => parseTeamGroups("platform=Platform")).toThrow(/group=Team name:role/);
  expect(() => parseTeamGroups("platform=Platform:god")).toThrow(/role one of/);
  expect(teamGrants(sso, ["platform", "platform-leads"]).get("Platform")).toBe("admin");
});

it("adds, re-roles and removes memberships of mapped teams and follows the admin groups", async () => {
  const person = await env.createUser();
  const own = await createTeam(env.services.db, { name: "Side project", ownerId: person.id });

  expect(await applySsoGroups(env.services.db, sso, person.id, ["platform", "tandem-admins", "unmapped"])).toBe(true);
  expect(await teamsOf(person.id)).toEqual({ Platform: "member", "Side project": "owner" });
  expect((await findUser(env.services.db, person.id))?.role).toBe("admin");

  // The same groups again change nothing.
  expect(await applySsoGroups(env.services.db, sso, person.id, ["platform", "tandem-admins"])).toBe(false);

  await applySsoGroups(env.services.db, sso, person.id, ["platform-leads", "web"]);
  expect(await teamsOf(person.id)).toEqual({ Platform: "admin", "Web team": "viewer", "Side project": "owner" });
  expect((await findUser(env.services.db, person.id))?.role).toBe("user");

  await applySsoGroups(env.services.db, sso, person.id, []);
  expect(await teamsOf(person.id)).toEqual({ [own.name]: "owner" });
});

it("finds a mapped team by name rather than making a second, and leaves its owner an owner", async () => {
  const owner = await env.createUser();
  const person = await env.createUser();
  await applySsoGroups(env.services.db, sso, person.id, ["web"]);
  const [web] = (await listTeamsForUser(env.services.db, person.id)).filter((t) => t.name === "Web team");
  await addMember(env.services.db, web!.id, owner.id, "owner");
  await applySsoGroups(env.services.db, sso, owner.id, []);
  expect((await teamsOf(owner.id))["Web team"]).toBe("owner");
  const other = await env.createUser();
  await applySsoGroups(env.services.db, sso, other.id, ["web"]);
  const [again] = (await listTeamsForUser(env.services.db, other.id)).filter((t) => t.name === "Web team");
  expect(again!.id).toBe(web!.id);
});

it("never puts the group's people into a team someone made, or renamed, to the mapped name", async () => {
  const db = env.services.db;
  const finance: SsoConfig = { ...sso, teamGroups: parseTeamGroups("finance=Finance:admin, finance=Ledger:member") };
  const squatter = await env.createUser();
  // Made before the first sign-on, with the name the admin will map...
  const squatted = await createTeam(db, { name: "Finance", ownerId: squatter.id });
  // ...and an old team of theirs, renamed to a mapped name once the mapping's own team exists.
  const old = await createTeam(db, { name: "Side", ownerId: squatter.id });

  const first = await env.createUser();
  await applySsoGroups(db, finance, first.id, ["finance"]);
  await renameTeam(db, old.id, "Ledger");
  const second = await env.createUser();
  await applySsoGroups(db, finance, second.id, ["finance"]);

  for (const person of [first, second]) {
    const mine = (await listTeamsForUser(db, person.id)).filter((team) => !team.personal);
    expect(mine.map((team) => team.name).sort()).toEqual(["Finance", "Ledger"]);
    expect(mine.map((team) => team.id)).not.toContain(squatted.id);
    expect(mine.map((team) => team.id)).not.toContain(old.id);
  }
  // The squatter's teams hold only the squatter.
  for (const team of [squatted, old])
    expect((await db.teamMember.findMany({ where: { teamId: team.id } })).map((m) => m.userId)).toEqual([squatter.id]);
});

it("makes a mapped team once when many first sign-ons race for it", async () => {
  const racing: SsoConfig = { ...sso, teamGroups: parseTeamGroups("race=Race team:member") };
  for (let round = 0; round < 5; round++) {
    const people = await Promise.all(Array.from({ length: 6 }, () => env.createUser()));
    await Promise.all(people.map((person) => applySsoGroups(env.services.db, racing, person.id, ["race"])));
    const teams = await env.services.db.team.findMany({ where: { name: "Race team", personal: false } });
    expect(teams).toHaveLength(1);
    for (const person of people) expect((await teamsOf(person.id))["Race team"]).toBe("member");
  }
});
