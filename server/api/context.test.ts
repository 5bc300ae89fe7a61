import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "@/server/api/context";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import { LOGIN_CACHE_TTL_MS } from "@/server/auth/login-cache";
import { setSetting } from "@/server/db/repositories/settings";
import { createTestServices } from "@/server/test/services";

let env: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  env = await createTestServices();
  await setSetting(env.services.db, "signupMode", "open");
});
afterAll(() => env.dispose());

async function signUp(email: string) {
  const response = await env.services.auth.handler(
    new Request("http://localhost:3000/api/auth/sign-up/email", {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_IP_HEADER]: "10.2.2.2" },
      body: JSON.stringify({ name: "Casey", email, password: "correct-horse-battery" }),
    }),
  );
  expect(response.status).toBe(200);
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return new Headers({ cookie, host: "localhost:3000" });
}

describe("createContext", () => {
  it("resolves the caller and their current role from the login cookie", async () => {
    const headers = await signUp("casey@example.com");
    const first = await createContext(env.services, headers);
    expect(first.user).toMatchObject({ email: "casey@example.com", role: "admin" });

    // A role changed through the product publishes an access change: the next call sees it.
    await env.services.db.user.update({ where: { email: "casey@example.com" }, data: { role: "user" } });
    env.services.accessChanges.publish({ kind: "user", userId: first.user!.id });
    expect((await createContext(env.services, headers)).user?.role).toBe("user");
  });

  it("sees a change made behind the product's back within a second", async () => {
    const headers = await signUp("dana@example.com");
    const first = await createContext(env.services, headers);
    await env.services.db.user.update({ where: { id: first.user!.id }, data: { role: "admin" } });
    await new Promise((r) => setTimeout(r, LOGIN_CACHE_TTL_MS + 50));
    expect((await createContext(env.services, headers)).user?.role).toBe("admin");
  });

  it("refuses a signed-out cookie at the next call", async () => {
    const headers = await signUp("erin@example.com");
    expect((await createContext(env.services, headers)).user?.email).toBe("erin@example.com");
    const out = await env.services.auth.handler(
      new Request("http://localhost:3000/api/auth/sign-out", {
        method: "POST",
        headers: { cookie: headers.get("cookie")!, origin: "http://localhost:3000", [CLIENT_IP_HEADER]: "10.2.2.2" },
      }),
    );
    expect(out.status).toBe(200);
    expect((await createContext(env.services, headers)).user).toBeNull();
  });

  it("does not keep a read that an access change overtook", async () => {
    const headers = await signUp("finn@example.com");
    const userId = (await createContext(env.services, headers)).user!.id;
    await new Promise((r) => setTimeout(r, LOGIN_CACHE_TTL_MS + 50)); // nothing kept from the sign-up's look
    const reading = createContext(env.services, headers);
    env.services.accessChanges.publish({ kind: "user", userId }); // while that read is under way
    expect((await reading).user?.role).toBe("user");
    await env.services.db.user.update({ where: { id: userId }, data: { role: "admin" } });
    expect((await createContext(env.services, headers)).user?.role).toBe("admin");
  });

  it("has no user without a valid cookie", async () => {
    expect(
      (await createContext(env.services, new Headers({ cookie: "better-auth.session_token=forged" }))).user,
    ).toBeNull();
  });
});
