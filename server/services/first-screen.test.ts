import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { setSetting } from "@/server/db/repositories/settings";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { loginCookie, warmUpFirstScreen } from "./first-screen";

// The start-up warm-up of a signed-in first screen acts as nobody: it presents a login cookie for
// no login session, reads as no person, and leaves the database as it found it. Its cookie is the
// one better-auth itself would accept: the same signing of a real login's token is that login.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;

beforeAll(async () => {
  env = await createTestServices();
  await setSetting(env.services.db, "signupMode", "open");
});
afterAll(() => env?.dispose());

const counts = async () => {
  const { db } = env.services;
  return {
    users: await db.user.count(),
    logins: await db.loginSession.count(),
    audit: await db.auditEvent.count(),
    projects: await db.project.count(),
    sessions: await db.agentSession.count(),
    rateLimits: await db.rateLimit.findMany({ orderBy: { key: "asc" } }),
  };
};

describe("the first screen's warm-up", () => {
  it("signs its cookie as better-auth does, and a cookie for no login session is nobody's", async () => {
    const person = await signUpPerson(env.services, "Ann");
    const token = decodeURIComponent(person.cookie.split("=")[1]!).split(".")[0]!;
    const same = await loginCookie(env.services.auth, token);
    expect((await env.services.logins.fresh(new Headers({ cookie: same })))?.user.id).toBe(person.id);
    const none = await loginCookie(env.services.auth, "no-such-login-session-token");
    expect(await env.services.logins.fresh(new Headers({ cookie: none }))).toBeNull();
  });

  it("reads the project worked in last as nobody, and changes nothing", async () => {
    const person = await signUpPerson(env.services, "Bo");
    const caller = createCaller(env.context({ id: person.id, email: "", name: "Bo", role: "user" }));
    const project = await caller.project.create({ name: "Warm" });
    await fs.writeFile(path.join(env.services.files.pathOf(project.id), "index.ts"), "export {};\n");
    const before = await counts();
    await warmUpFirstScreen({ ...env.services, servesFiles: true });
    await warmUpFirstScreen({ ...env.services, servesFiles: false });
    expect(await counts()).toEqual(before);
    expect(await fs.readdir(env.services.files.pathOf(project.id))).toEqual(["index.ts"]);
  });
});
