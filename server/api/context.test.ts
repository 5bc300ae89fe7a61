import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "@/server/api/trpc";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import { createTestServices } from "@/server/test/services";

let env: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  env = await createTestServices();
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
  const cookie = response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return new Headers({ cookie, host: "localhost:3000" });
}

describe("createContext", () => {
  it("resolves the caller and their current role from the login cookie", async () => {
    const headers = await signUp("casey@example.com");
    const first = await createContext(env.services, headers);
    expect(first.user).toMatchObject({ email: "casey@example.com", role: "admin" });

    await env.services.db.user.update({ where: { email: "casey@example.com" }, data: { role: "user" } });
    expect((await createContext(env.services, headers)).user?.role).toBe("user");
  });

  it("has no user without a valid cookie", async () => {
    expect((await createContext(env.services, new Headers({ cookie: "better-auth.session_token=forged" }))).user).toBeNull();
  });
});
