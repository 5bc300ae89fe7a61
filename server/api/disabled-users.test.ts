import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter, type AppRouter } from "@/server/api/root";
import { startServer, type RunningServer } from "@/server/start-server";
import { setSetting } from "@/server/db/repositories/settings";
import { createTestServices, signUpPerson } from "@/server/test/services";

// An admin disables a person through a real server: the person's browser login and API token are
// refused at their very next request, and signing in again is refused until they are enabled.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;
const client = (headers: Record<string, string>): Client =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/api/trpc`, transformer: superjson, headers })],
  });

async function code(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return (error as { data?: { code?: string } }).data?.code ?? (error as Error).message;
  }
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  await setSetting(env.services.db, "signupMode", "open");
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

it("ends a disabled person's login and token at the next request and refuses their sign-in", async () => {
  const admin = await env.createUser("admin");
  const ben = await signUpPerson(env.services, "Ben");
  const benBrowser = client({ cookie: ben.cookie, origin: server.url });
  const { token } = await benBrowser.apiToken.create.mutate({ name: "ci", scopes: ["read"], expiresInDays: 7 });
  const benScript = client({ authorization: `Bearer ${token}` });
  expect((await benBrowser.account.me.query())?.id).toBe(ben.id);
  expect((await benScript.account.me.query())?.id).toBe(ben.id);

  const asAdmin = appRouter.createCaller(env.context(admin));
  await asAdmin.account.setUserDisabled({ userId: ben.id, disabled: true });
  expect((await asAdmin.account.users()).find((user) => user.id === ben.id)?.disabledAt).toBeInstanceOf(Date);

  expect(await code(benBrowser.account.me.query())).toBe("UNAUTHORIZED");
  expect(await code(benScript.account.me.query())).toBe("UNAUTHORIZED");
  const email = (await asAdmin.account.users()).find((user) => user.id === ben.id)!.email;
  const signIn = () =>
    env.services.auth.api.signInEmail({ body: { email, password: "correct-horse-battery" }, asResponse: true });
  const refused = await signIn();
  expect(refused.status).toBe(403);
  expect(await refused.text()).toContain("disabled");

  await asAdmin.account.setUserDisabled({ userId: ben.id, disabled: false });
  expect((await signIn()).status).toBe(200);
  expect((await benScript.account.me.query())?.id).toBe(ben.id);
});

it("refuses an admin disabling their own account", async () => {
  const admin = await env.createUser("admin");
  expect(
    await code(
      appRouter.createCaller(env.context(admin)).account.setUserDisabled({ userId: admin.id, disabled: true }),
    ),
  ).toMatch(/BAD_REQUEST|cannot disable your own/);
});
