import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteTeamGitCredential } from "@/server/db/repositories/git-credentials";
import { ensurePersonalTeam } from "@/server/db/repositories/teams";
import { createTeamBot } from "@/server/db/repositories/users";
import { storeGitCredential } from "@/server/services/git-credentials";
import { createTestServices } from "@/server/test/services";
import { useToolSessions } from "@/server/test/tool-session";
import { forgeApiTool } from "@/server/tools/forge-api";
import { toolForcesApproval } from "@/server/tools/registry";
import { createForgeApi } from "./forge-api";

// github_api and gitlab_api against a local REST stand-in on loopback that speaks both forges'
// paths and checks the token: offered only for the tokens a person stored, each token sent only
// to its own forge's API, writes asking always, and a host the admin did not configure reached
// only through the address check.

let env: Awaited<ReturnType<typeof createTestServices>>;
let forge: Server;
let port = 0;
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];
const session = useToolSessions();
let project = "";
const people: Record<"ann" | "bob" | "carl", string> = { ann: "", bob: "", carl: "" };

function answer(req: IncomingMessage, body: string): [number, unknown] {
  const auth = req.headers.authorization;
  if (req.url?.startsWith("/api/v3/")) {
    if (auth !== "Bearer gh-ann") return [401, { message: "Bad credentials" }];
    if (req.method === "GET" && req.url === "/api/v3/repos/acme/shop/issues?state=open")
      return [200, [{ number: 1, title: "Checkout fails" }]];
    if (req.method === "POST" && req.url === "/api/v3/repos/acme/shop/issues")
      return [201, { number: 2, title: (JSON.parse(body) as { title: string }).title }];
  }
  if (req.url?.startsWith("/api/v4/")) {
    if (auth !== "Bearer gl-ann") return [401, { message: "401 Unauthorized" }];
    if (req.url === "/api/v4/projects/acme%2Fshop/merge_requests") return [200, [{ iid: 7, title: "Faster cart" }]];
  }
  return [404, { message: "Not Found" }];
}

beforeAll(async () => {
  forge = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body });
      const [status, json] = answer(req, body);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => forge.listen(0, "127.0.0.1", resolve));
  port = (forge.address() as AddressInfo).port;
  env = await createTestServices();
  const db = env.services.db;
  const users = { ann: await env.createUser(), bob: await env.createUser(), carl: await env.createUser() };
  for (const name of ["ann", "bob", "carl"] as const) people[name] = users[name].id;
  const teamId = (await ensurePersonalTeam(db, users.ann)).id;
  for (const id of [people.bob, people.carl])
    await db.teamMember.create({ data: { teamId, userId: id, role: "member" } });
  project = (await db.project.create({ data: { name: "Shop", ownerId: people.ann, teamId }, select: { id: true } })).id;
  const store = (userId: string, host: string, token: string) =>
    storeGitCredential(db, env.services.gitCipher, { name: host, host, token }, { userId }, userId);
  await store(people.ann, `127.0.0.1:${port}`, "gh-ann");
  await store(people.ann, `localhost:${port}`, "gl-ann");
  // A host no admin configured, named like a GitHub Enterprise, that resolves to loopback.
  await store(people.carl, "github.corp.test", "gh-carl");
}, 60_000);
afterAll(async () => {
  forge?.close();
  await env?.dispose();
});

const api = () =>
  createForgeApi({
    db: env.services.db,
    cipher: env.services.gitCipher,
    forges: {
      [`127.0.0.1:${port}`]: { kind: "github", api: `http://127.0.0.1:${port}/api/v3` },
      [`localhost:${port}`]: { kind: "gitlab", api: `http://localhost:${port}/api/v4` },
    },
    fetchPolicy: {
      allowHosts: [],
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
      projectNetwork: async () => ({ policy: "open", allowHosts: [] }),
    },
  });

describe("github_api and gitlab_api", () => {
  it("reads each forge with the person's own token for it", async () => {
    const forges = await api().forPerson(people.ann, project);
    expect(Object.keys(forges).sort()).toEqual(["github", "gitlab"]);
    const s = await session({ userId: people.ann, projectId: project });
    const issues = await s.run(forgeApiTool("github", forges.github!), {
      path: "/repos/acme/shop/issues",
      query: { state: "open" },
    });
    expect(issues.error).toBeUndefined();
    expect(issues.llm).toContain("GET /repos/acme/shop/issues → HTTP 200");
    expect(issues.llm).toContain("Checkout fails");
    const mrs = await s.run(forgeApiTool("gitlab", forges.gitlab!), { path: "/projects/acme%2Fshop/merge_requests" });
    expect(mrs.llm).toContain("Faster cart");
    expect(seen.filter((r) => r.url.startsWith("/api/v4/")).map((r) => r.auth)).toEqual(["Bearer gl-ann"]);
  });

  it("asks always before acting on the forge, and reports the forge's refusals", async () => {
    const forges = await api().forPerson(people.ann, project);
    const tool = forgeApiTool("github", forges.github!);
    const s = await session({ userId: people.ann, projectId: project });
    const post = { method: "POST", path: "/repos/acme/shop/issues", body: { title: "From the agent" } };
    expect(await toolForcesApproval(tool, post, s.ctx)).toBe("always");
    expect(await toolForcesApproval(tool, { path: "/user" }, s.ctx)).toBe(false);
    expect((await s.run(tool, post)).llm).toContain("HTTP 201");
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ title: "From the agent" });
    expect((await s.run(tool, { path: "/nothing" })).error?.code).toBe("NOT_FOUND");
    expect((await s.run(tool, { path: "//evil.test/x" })).error?.code).toBe("INVALID_INPUT");
    expect((await s.run(tool, { path: "/repos/../../x" })).error?.code).toBe("INVALID_INPUT");
  });

  it("offers nothing to a person without a token, and never another person's token", async () => {
    expect(await api().forPerson(people.bob, project)).toEqual({});
  });

  it("offers the team's shared token to its people, never to the team's own account (a webhook's sessions)", async () => {
    const db = env.services.db;
    const teamId = (await db.project.findUniqueOrThrow({ where: { id: project }, select: { teamId: true } })).teamId;
    const shared = await storeGitCredential(
      db,
      env.services.gitCipher,
      { name: "team", host: `localhost:${port}`, token: "gl-team" },
      { teamId },
      people.ann,
    );
    try {
      const bot = await createTeamBot(db, { teamId, name: "Webhook · Shop", role: "member" });
      expect(Object.keys(await api().forPerson(people.bob, project))).toEqual(["gitlab"]);
      expect(await api().forPerson(bot.id, project)).toEqual({});
    } finally {
      await deleteTeamGitCredential(db, teamId, shared.id);
    }
  });

  it("reaches a host the admin did not configure only through the address check", async () => {
    const before = seen.length;
    const forges = await api().forPerson(people.carl, project);
    expect(Object.keys(forges)).toEqual(["github"]);
    const s = await session({ userId: people.carl, projectId: project });
    const run = await s.run(forgeApiTool("github", forges.github!), { path: "/user" });
    expect(run.error?.code).toBe("BLOCKED_ADDRESS");
    expect(seen.length).toBe(before);
  });
});
