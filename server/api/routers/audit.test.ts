import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { startServer, type RunningServer } from "@/server/start-server";
import { setSetting } from "@/server/db/repositories/settings";

// The audit log through a real server over HTTP: what the server sees of each request (the peer's
// address, the X-Forwarded-For it claims, its user agent) is what a row records.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let admin: { cookie: string; id: string; email: string };
let member: { cookie: string; id: string };

const UA = "AuditTest/1.0 (vitest)";
type Client = ReturnType<typeof createTRPCClient<AppRouter>>;
const overHttp = (headers: Record<string, string>): Client =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: { "user-agent": UA, ...headers } })],
  });
const as = (cookie: string) => overHttp({ cookie, origin: base });

async function signIn(email: string, password: string) {
  return fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, "user-agent": UA, "x-forwarded-for": "203.0.113.9" },
    body: JSON.stringify({ email, password }),
  });
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const first = await signUpPerson(env.services, "Ada"); // the first account is the admin
  admin = { ...first, email: (await env.services.db.user.findUniqueOrThrow({ where: { id: first.id } })).email };
  await setSetting(env.services.db, "signupMode", "open");
  member = await signUpPerson(env.services, "Max");
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("audit log over HTTP", () => {
  it("records a refused and a successful sign-in with the address the server saw, the claimed forwarding and the agent", async () => {
    expect((await signIn(admin.email, "wrong password!")).status).toBe(401);
    expect((await signIn(admin.email, "correct-horse-battery")).status).toBe(200);
    const failed = await as(admin.cookie).audit.search.query({ action: "sign_in_failed" });
    expect(failed[0]).toMatchObject({
      actorId: null,
      via: "anonymous",
      actorEmail: admin.email,
      ip: expect.stringMatching(/127\.0\.0\.1/),
      forwardedFor: "203.0.113.9",
      userAgent: UA,
      detail: { method: "password", status: 401 },
    });
    const signedIn = await as(admin.cookie).audit.search.query({ action: "sign_in", actor: admin.id });
    expect(signedIn[0]).toMatchObject({ actorId: admin.id, via: "browser", ip: expect.stringMatching(/127\.0\.0\.1/) });
  });

  it("records team changes by who made them, searchable by team, person and action", async () => {
    const team = await as(admin.cookie).team.create.mutate({ name: "Audited" });
    const invite = await as(admin.cookie).team.createInvite.mutate({ teamId: team.id, role: "member" });
    await as(member.cookie).team.acceptInvite.mutate({ token: invite.path.slice(6) });
    await as(admin.cookie).team.setRole.mutate({ teamId: team.id, userId: member.id, role: "admin" });
    const rows = await as(admin.cookie).audit.search.query({ teamId: team.id });
    expect(rows.map((r) => [r.action, r.actorId, r.target]).reverse()).toEqual([
      ["team.created", admin.id, admin.id],
      ["team.invite_created", admin.id, invite.id],
      ["team.member_added", member.id, member.id],
      ["team.role_changed", admin.id, member.id],
    ]);
    expect(rows.every((r) => r.userAgent === UA && r.via === "browser")).toBe(true);
    const byMember = await as(admin.cookie).audit.search.query({ actor: member.id, teamId: team.id });
    expect(byMember.map((r) => r.action)).toEqual(["team.member_added"]);
  });

  it("records a token's creation and its use, with the token and the address", async () => {
    const { token, apiToken } = await as(admin.cookie).apiToken.create.mutate({
      name: "ci",
      scopes: ["read"],
      expiresInDays: 1,
    });
    await overHttp({ authorization: `Bearer ${token}` }).account.me.query();
    const rows = await as(admin.cookie).audit.search.query({ actor: admin.id });
    expect(rows.find((r) => r.action === "api_token.created")).toMatchObject({
      target: apiToken.id,
      detail: { scopes: ["read"] },
    });
    expect(rows.find((r) => r.action === "api_token.used")).toMatchObject({
      via: "token",
      tokenId: apiToken.id,
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: UA,
    });
  });

  it("exports what a search finds as CSV and JSON lines", async () => {
    const csv = await as(admin.cookie).audit.export.query({ format: "csv", action: "team.role_changed" });
    expect(csv).toMatchObject({ contentType: "text/csv", rows: 1, truncated: false });
    expect(csv.content.split("\r\n")[0]).toBe(
      "id,at,action,actorId,actorEmail,via,tokenId,ip,forwardedFor,userAgent,teamId,projectId,target,detail",
    );
    expect(csv.content).toContain(`team.role_changed,${admin.id},${admin.email},browser`);
    const jsonl = await as(admin.cookie).audit.export.query({ format: "jsonl", action: "team.role_changed" });
    expect(
      jsonl.content
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["team.role_changed"]);
  });

  it("keeps the log and its retention to admins, and records a retention change", async () => {
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => "allowed",
        (e: { data?: { code?: string } }) => e.data?.code,
      );
    expect(await refused(as(member.cookie).audit.search.query({}))).toBe("FORBIDDEN");
    expect(await refused(as(member.cookie).audit.export.query({ format: "csv" }))).toBe("FORBIDDEN");
    expect(await refused(as(member.cookie).audit.setRetention.mutate({ days: 1 }))).toBe("FORBIDDEN");
    expect(await as(admin.cookie).audit.setRetention.mutate({ days: 30 })).toEqual({ days: 30 });
    expect(await as(admin.cookie).audit.retention.query()).toEqual({ days: 30 });
    const [changed] = await as(admin.cookie).audit.search.query({ action: "settings.changed" });
    expect(changed).toMatchObject({ actorId: admin.id, target: "auditRetentionDays", detail: { value: 30 } });
  });
});
