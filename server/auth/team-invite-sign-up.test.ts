import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTeam, createTeamInvite, listMembers, revokeTeamInvite } from "@/server/db/repositories/teams";
import { createTestDatabase } from "@/server/test/database";
import { CLIENT_IP_HEADER, createAuth, type Auth } from "./auth";

// A team's invitation link signs a person up and into the team in one step, through better-auth's
// real sign-up endpoint, while sign-up is by invitation (the default). The link is checked and used
// up on the server: a used, expired, revoked or missing one signs nobody up, and two sign-ups racing
// with one link let one in.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let auth: Auth;
let ownerId: string;
let teamId: string;
let ipCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  auth = createAuth({ db: database.db, secret: "s".repeat(32), secureCookies: false });
  // The first account needs no invitation; it owns the team that invites.
  expect((await signUp("owner@example.com")).status).toBe(200);
  ownerId = (await database.db.user.findUniqueOrThrow({ where: { email: "owner@example.com" } })).id;
  teamId = (await createTeam(database.db, { name: "Acme", ownerId })).id;
});
afterAll(() => database.drop());

// Each request from its own address: better-auth allows 5 sign-ups a minute per address.
function signUp(email: string, extra: object = {}) {
  return auth.handler(
    new Request("http://localhost:3000/api/auth/sign-up/email", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "http://localhost:3000",
        [CLIENT_IP_HEADER]: `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`,
      },
      body: JSON.stringify({ name: email.split("@")[0], email, password: "correct-horse-battery", ...extra }),
    }),
  );
}

const invite = (options: { email?: string; role?: "member" | "viewer" } = {}) =>
  createTeamInvite(database.db, { teamId, role: options.role ?? "member", email: options.email, createdById: ownerId });
const accountOf = (email: string) => database.db.user.findUnique({ where: { email } });
const memberRole = async (email: string) =>
  (await listMembers(database.db, teamId)).find((m) => m.email === email)?.role;

describe("signing up with a team's invitation link", () => {
  it("makes the account and puts it in the team with the link's role, while sign-up is by invitation", async () => {
    const link = await invite({ role: "viewer" });
    const response = await signUp("newcomer@example.com", { teamInviteToken: link.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/session_token=/);
    const user = await accountOf("newcomer@example.com");
    expect(user?.role).toBe("user");
    expect(await memberRole("newcomer@example.com")).toBe("viewer");
    expect(await database.db.teamInvite.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({
      usedById: user!.id,
    });
  });

  it("holds to a link made for one email address", async () => {
    const link = await invite({ email: "named@example.com" });
    const refused = await signUp("other@example.com", { teamInviteToken: link.token });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/another email address/);
    expect(await accountOf("other@example.com")).toBeNull();
    expect((await signUp("Named@Example.com", { teamInviteToken: link.token })).status).toBe(200);
    expect(await memberRole("named@example.com")).toBe("member");
  });

  it("signs nobody up with a used, expired, revoked or made-up link, nor without one", async () => {
    const used = await invite();
    expect((await signUp("first-holder@example.com", { teamInviteToken: used.token })).status).toBe(200);
    const expired = await invite();
    await database.db.teamInvite.update({
      where: { id: expired.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const revoked = await invite();
    await revokeTeamInvite(database.db, teamId, revoked.id);
    // An open invitation of the team opens nothing to someone who does not hold it.
    await invite();

    const attempts: Array<[string, object, RegExp]> = [
      ["second-holder@example.com", { teamInviteToken: used.token }, /already been used/],
      ["late@example.com", { teamInviteToken: expired.token }, /expired/],
      ["revoked@example.com", { teamInviteToken: revoked.token }, /not valid/],
      ["guess@example.com", { teamInviteToken: "A".repeat(43) }, /not valid/],
      ["nobody@example.com", {}, /by invitation/],
    ];
    for (const [email, extra, reason] of attempts) {
      const response = await signUp(email, extra);
      expect(response.status, email).toBe(403);
      expect(await response.text(), email).toMatch(reason);
      expect(await accountOf(email), email).toBeNull();
    }
  });

  it("lets one in when several sign-ups race with one link", async () => {
    for (let round = 0; round < 8; round++) {
      const link = await invite();
      const emails = [0, 1, 2].map((i) => `racer-${round}-${i}@example.com`);
      const statuses = await Promise.all(
        emails.map((email) => signUp(email, { teamInviteToken: link.token }).then((r) => r.status)),
      );
      expect(
        statuses.filter((status) => status === 200),
        `round ${round}: ${statuses.join(", ")}`,
      ).toHaveLength(1);
      expect(statuses.filter((status) => status === 403)).toHaveLength(2);
      const accounts = (await Promise.all(emails.map(accountOf))).filter((user) => user !== null);
      expect(accounts).toHaveLength(1);
      const members = (await listMembers(database.db, teamId)).filter((m) => emails.includes(m.email));
      expect(members.map((m) => m.id)).toEqual([accounts[0]!.id]);
    }
  });
});
