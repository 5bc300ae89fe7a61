import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInvite, listInvites } from "@/server/db/repositories/invites";
import { setInstanceRole, setUserDisabled } from "@/server/db/repositories/users";
import { setSetting } from "@/server/db/repositories/settings";
import { createTestDatabase } from "@/server/test/database";
import { CLIENT_IP_HEADER, createAuth, type Auth } from "./auth";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let auth: Auth;
let ipCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  auth = createAuth({ db: database.db, secret: "s".repeat(32), secureCookies: false });
  // The first account (no invitation needed), which the tests below sign in as or count on.
  expect((await signUp("first@example.com")).status).toBe(200);
});
afterAll(() => database.drop());

function post(path: string, body: object, ip = `10.0.0.${++ipCounter}`) {
  return auth.handler(
    new Request(`http://localhost:3000/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:3000", [CLIENT_IP_HEADER]: ip },
      body: JSON.stringify(body),
    }),
  );
}

const signUp = (email: string, extra: object = {}) =>
  post("/sign-up/email", { name: email.split("@")[0], email, password: "correct-horse-battery", ...extra });

describe("accounts", () => {
  it("makes the first account the admin, and later ones plain users", async () => {
    const first = await database.db.user.findUnique({ where: { email: "first@example.com" } });
    expect(first?.role).toBe("admin");

    await setSetting(database.db, "signupMode", "open");
    expect((await signUp("second@example.com")).status).toBe(200);
    const second = await database.db.user.findUnique({ where: { email: "second@example.com" } });
    expect(second?.role).toBe("user");
  });

  it("sets an httpOnly, SameSite session cookie", async () => {
    const response = await post("/sign-in/email", { email: "first@example.com", password: "correct-horse-battery" });
    expect(response.status).toBe(200);
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it("does not let a client choose its role", async () => {
    await setSetting(database.db, "signupMode", "open");
    await signUp("sneaky@example.com", { role: "admin" });
    const user = await database.db.user.findUnique({ where: { email: "sneaky@example.com" } });
    expect(user?.role ?? "user").toBe("user");
  });

  it("requires a valid, unused invitation when sign-up is by invitation", async () => {
    await setSetting(database.db, "signupMode", "invite");
    const refused = await signUp("nobody@example.com");
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/invitation/i);

    const admin = await database.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const invite = await createInvite(database.db, { createdById: admin.id });
    expect((await signUp("invited@example.com", { inviteToken: "wrong" })).status).toBe(403);
    expect((await signUp("invited@example.com", { inviteToken: invite.token })).status).toBe(200);
    expect((await signUp("again@example.com", { inviteToken: invite.token })).status).toBe(403);
  });

  it("lets nobody in with a sign-up link once its maker is no longer an admin", async () => {
    // Mallory, an admin about to lose it, keeps links for whoever holds them (no address on them).
    await setSetting(database.db, "signupMode", "open");
    expect((await signUp("mallory@example.com")).status).toBe(200);
    const mallory = await database.db.user.findUniqueOrThrow({ where: { email: "mallory@example.com" } });
    await setInstanceRole(database.db, mallory.id, "admin");
    await setSetting(database.db, "signupMode", "invite");
    const kept = [
      await createInvite(database.db, { createdById: mallory.id }),
      await createInvite(database.db, { createdById: mallory.id }),
    ];
    const live = async () => (await listInvites(database.db)).map((invite) => invite.id);
    expect(await live()).toEqual(expect.arrayContaining(kept.map((invite) => invite.id)));

    // Demoted (the provider's groups no longer make her one): her links end, and are no longer listed.
    await setInstanceRole(database.db, mallory.id, "user");
    const refused = await signUp("friend@example.com", { inviteToken: kept[0]!.token });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/no longer invites/);
    expect(await live()).not.toContain(kept[0]!.id);

    // Made an admin again, then disabled: still nobody.
    await setInstanceRole(database.db, mallory.id, "admin");
    await setUserDisabled(database.db, mallory.id, true);
    expect((await signUp("friend@example.com", { inviteToken: kept[1]!.token })).status).toBe(403);
    expect(await database.db.user.findUnique({ where: { email: "friend@example.com" } })).toBeNull();

    // An admin still in charge: their link works.
    const admin = await database.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const good = await createInvite(database.db, { createdById: admin.id });
    expect((await signUp("friend@example.com", { inviteToken: good.token })).status).toBe(200);
  });

  it("rate-limits sign-in attempts per client address", async () => {
    const attempt = () =>
      post("/sign-in/email", { email: "first@example.com", password: "wrong-password" }, "10.9.9.9");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await attempt()).status);
    expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Another address is not affected.
    expect(
      (await post("/sign-in/email", { email: "first@example.com", password: "wrong-password" }, "10.9.9.10")).status,
    ).toBe(401);
  });
});
