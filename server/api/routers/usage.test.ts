import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { startServer, type RunningServer } from "@/server/start-server";
import { setSetting } from "@/server/db/repositories/settings";
import { createTeam } from "@/server/db/repositories/teams";

// Usage and budgets over HTTP, as an attacker inside the server would try them: a member of one
// team reading another's spending, people who are not the server's admins setting budgets and
// prices (a team owner, an admin's narrow token).

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let admin: { cookie: string; id: string };
let alice: { cookie: string; id: string };
let bob: { cookie: string; id: string };
let teamA: { id: string; name: string };
let teamB: { id: string; name: string };

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;
const overHttp = (headers: Record<string, string>): Client =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers })] });
const as = (cookie: string) => overHttp({ cookie, origin: base });
const code = (call: Promise<unknown>) =>
  call.then(
    () => "allowed",
    (e: { data?: { code?: string } }) => e.data?.code,
  );

async function spend(teamId: string, userId: string, costUsd: number, model = "openai:gpt-test") {
  const project = await env.services.db.project.create({ data: { name: "P", ownerId: userId, teamId } });
  await env.services.db.usageEntry.create({
    data: {
      sessionId: crypto.randomUUID(),
      projectId: project.id,
      teamId,
      userId,
      model,
      inputTokens: 1000,
      outputTokens: 100,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      costUsd,
    },
  });
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  admin = await signUpPerson(env.services, "Ada");
  await setSetting(env.services.db, "signupMode", "open");
  alice = await signUpPerson(env.services, "Alice");
  bob = await signUpPerson(env.services, "Bob");
  teamA = await createTeam(env.services.db, { name: "Alpha", ownerId: alice.id });
  teamB = await createTeam(env.services.db, { name: "Beta", ownerId: bob.id });
  await spend(teamA.id, alice.id, 3);
  await spend(teamB.id, bob.id, 5);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("usage and budgets over HTTP", () => {
  it("shows a team its own usage and nobody else's", async () => {
    const mine = await as(alice.cookie).usage.team.query({ teamId: teamA.id });
    expect(mine.rows.map((r) => [r.teamName, r.costUsd])).toEqual([["Alpha", 3]]);
    expect(await code(as(alice.cookie).usage.team.query({ teamId: teamB.id }))).toBe("NOT_FOUND");
    expect(await code(as(alice.cookie).usage.report.query({}))).toBe("FORBIDDEN");
    expect(await code(as(alice.cookie).usage.budgets.query())).toBe("FORBIDDEN");
    const all = await as(admin.cookie).usage.report.query({});
    expect(all.rows.map((r) => r.teamName).sort()).toEqual(["Alpha", "Beta"]);
  });

  it("lets only the server's admins set budgets and prices: not a team's owner, not an admin's token without admin", async () => {
    expect(await code(as(alice.cookie).usage.setBudget.mutate({ teamId: teamA.id, monthlyUsd: 1_000_000 }))).toBe(
      "FORBIDDEN",
    );
    expect(await code(as(alice.cookie).usage.setBudget.mutate({ email: "a@example.com", monthlyUsd: null }))).toBe(
      "FORBIDDEN",
    );
    const price = { model: "openai:gpt-test", inputPerMTok: 0, outputPerMTok: 0, contextWindow: null };
    expect(await code(as(alice.cookie).model.setSettings.mutate(price))).toBe("FORBIDDEN");
    const { token } = await as(admin.cookie).apiToken.create.mutate({
      name: "ci",
      scopes: ["read", "write", "run"],
      expiresInDays: 1,
    });
    const script = overHttp({ authorization: `Bearer ${token}` });
    expect(await code(script.usage.setBudget.mutate({ teamId: teamA.id, monthlyUsd: 1 }))).toBe("FORBIDDEN");
    expect(await code(script.model.setSettings.mutate(price))).toBe("FORBIDDEN");
    expect(await env.services.db.budget.count()).toBe(0);
  });

  it("sets a team's and a person's budget, shows each with this month's spending, and records who set them", async () => {
    await as(admin.cookie).usage.setBudget.mutate({ teamId: teamA.id, monthlyUsd: 4 });
    const bobEmail = (await env.services.db.user.findUniqueOrThrow({ where: { id: bob.id } })).email;
    await as(admin.cookie).usage.setBudget.mutate({ email: bobEmail, monthlyUsd: 10 });
    const { budgets } = await as(admin.cookie).usage.budgets.query();
    expect(budgets.map((b) => [b.scope, b.name, b.monthlyUsd, b.spentUsd]).sort()).toEqual([
      ["person", bobEmail, 10, 5],
      ["team", "Alpha", 4, 3],
    ]);
    expect((await as(alice.cookie).usage.team.query({ teamId: teamA.id })).budget).toMatchObject({
      monthlyUsd: 4,
      spentUsd: 3,
    });
    expect(await code(as(admin.cookie).usage.setBudget.mutate({ email: "nobody@example.com", monthlyUsd: 1 }))).toBe(
      "BAD_REQUEST",
    );
    const rows = await as(admin.cookie).audit.search.query({ action: "budget.set" });
    expect(rows.map((r) => [r.actorId, r.detail.monthlyUsd])).toEqual([
      [admin.id, 10],
      [admin.id, 4],
    ]);
  });

  it("refuses a report longer than a year with a message", async () => {
    const call = as(admin.cookie).usage.report.query({ from: new Date("2020-01-01"), to: new Date("2026-01-01") });
    await expect(call).rejects.toThrow(/at most 366 days/);
  });
});
