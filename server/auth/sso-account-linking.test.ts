import { createServer } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SsoConfig } from "@/lib/sso";
import { setSetting } from "@/server/db/repositories/settings";
import { createTestDatabase } from "@/server/test/database";
import { CLIENT_IP_HEADER, createAuth, type Auth } from "./auth";

// Single sign-on against a real OpenID provider (the certified oidc-provider package) on loopback,
// through better-auth's real endpoints, as an attacker who holds an identity of their own at the
// organisation's provider. Directories let people edit their address (the provider then says it
// is not verified: email_verified false); an address nobody verified must never sign anyone into
// the account that already carries it.

const BASE = "http://localhost:3000";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let provider: ReturnType<Provider["listen"]>;
let auth: Auth;
let ip = 0;

/** A login typed on the provider's page, "id|email|verified" (verified: "yes" or "no"): its claims. */
function account(login: string) {
  const [sub = "", email = "", verified = "yes"] = login.split("|");
  return { sub, email, email_verified: verified === "yes", name: sub };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: "tandem",
        client_secret: "sso-linking-test-client-secret",
        redirect_uris: [`${BASE}/api/auth/callback/sso`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    cookies: { keys: ["sso-linking-test-cookie-key"] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    findAccount: async (_ctx, login) => ({ accountId: login, claims: async () => account(login) }),
  });
  provider = oidc.listen(port, "127.0.0.1");
  await new Promise<void>((resolve) => provider.once("listening", () => resolve()));
  const sso: SsoConfig = {
    issuer,
    clientId: "tandem",
    clientSecret: "sso-linking-test-client-secret",
    name: "Acme SSO",
    allowedDomains: ["acme.test"],
    groupsClaim: "groups",
    teamGroups: [],
    adminGroups: [],
  };
  auth = createAuth({ db: database.db, secret: "s".repeat(32), publicUrl: BASE, secureCookies: false, sso });
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => provider?.close(resolve));
  await database?.drop();
});

type Jar = Map<string, string>;
function keep(jar: Jar, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at).trim(), pair.slice(at + 1));
  }
}
const cookies = (jar: Jar) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/** One whole sign-on as `login`: Tandem's start, the provider's login and consent, Tandem's callback. */
async function signOn(login: string): Promise<{ status: number; location: string; userId: string | null }> {
  const tandem: Jar = new Map();
  const idp: Jar = new Map();
  const address = `10.9.0.${++ip}`;
  const start = await auth.handler(
    new Request(`${BASE}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, [CLIENT_IP_HEADER]: address },
      body: JSON.stringify({ provider: "sso", callbackURL: "/" }),
    }),
  );
  expect(start.status).toBe(200);
  keep(tandem, start);
  let next = ((await start.json()) as { url: string }).url;
  for (let hop = 0; hop < 12; hop++) {
    if (next.startsWith(`${BASE}/`)) {
      const callback = await auth.handler(
        new Request(next, { headers: { cookie: cookies(tandem), [CLIENT_IP_HEADER]: address } }),
      );
      keep(tandem, callback);
      const token = tandem.get("better-auth.session_token");
      const session = token
        ? await database.db.loginSession.findFirst({
            where: { token: decodeURIComponent(token).split(".")[0] },
            select: { userId: true },
          })
        : null;
      return {
        status: callback.status,
        location: callback.headers.get("location") ?? "",
        userId: session?.userId ?? null,
      };
    }
    let response = await fetch(next, { headers: { cookie: cookies(idp) }, redirect: "manual" });
    keep(idp, response);
    const uid = /\/interaction\/([^/?#]+)$/.exec(new URL(next).pathname)?.[1];
    if (uid && response.status === 200) {
      // The provider's own login page, then its consent page: each is one form posted back.
      const page = await response.text();
      const form: Record<string, string> = page.includes('name="login"')
        ? { prompt: "login", login, password: "anything" }
        : { prompt: "consent" };
      response = await fetch(`${new URL(next).origin}/interaction/${uid}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies(idp) },
        body: new URLSearchParams(form).toString(),
        redirect: "manual",
      });
      keep(idp, response);
    }
    const location = response.headers.get("location");
    if (!location) throw new Error(`the provider stopped at ${next} with ${response.status}`);
    next = new URL(location, next).toString();
  }
  throw new Error("the sign-on never came back to Tandem");
}

it("signs a person on, and the same person again into the same account", async () => {
  const first = await signOn("ann-sub|ann@acme.test|yes");
  expect(first.userId).not.toBeNull();
  expect((await signOn("ann-sub|ann@acme.test|yes")).userId).toBe(first.userId);
});

it("never signs an address the provider did not verify into the account that holds it", async () => {
  const victim = await signOn("bob-sub|bob@acme.test|yes");
  expect(victim.userId).not.toBeNull();
  // Mallory's own identity at the provider, her address edited to Bob's and so not verified.
  const attack = await signOn("mallory-sub|bob@acme.test|no");
  expect(attack.userId).not.toBe(victim.userId);
  expect(attack.userId).toBeNull();
  expect(attack.location).toMatch(/error=/);
  // Bob's account has his own identity at the provider alone, not Mallory's beside it.
  expect(await database.db.account.count({ where: { userId: victim.userId! } })).toBe(1);
});

it("never signs a person on into a password account someone made with their address beforehand", async () => {
  // While sign-up is open, Mallory makes a password account with Carol's address, unverified, and
  // waits for Carol's first sign-on to join it: she would then share Carol's account by password.
  await setSetting(database.db, "signupMode", "open");
  const made = await auth.handler(
    new Request(`${BASE}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, [CLIENT_IP_HEADER]: "10.9.1.1" },
      body: JSON.stringify({ name: "Carol", email: "carol@acme.test", password: "mallory-knows-this" }),
    }),
  );
  expect(made.status).toBe(200);
  const planted = await database.db.user.findUniqueOrThrow({ where: { email: "carol@acme.test" } });
  const carol = await signOn("carol-sub|carol@acme.test|yes");
  expect(carol.userId).not.toBe(planted.id);
  expect(await database.db.account.count({ where: { userId: planted.id, providerId: "sso" } })).toBe(0);
});
