import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as memories from "@/server/db/repositories/memories";
import { ensurePersonalTeam } from "@/server/db/repositories/teams";
import { createTestServices } from "@/server/test/services";
import { memoriesToMarkdown, memoryTool, type MemoryStore } from "./memory";
import { useToolSessions } from "@/server/test/tool-session";

let env: Awaited<ReturnType<typeof createTestServices>>;
let tool: ReturnType<typeof memoryTool>;
let projects: { a: string; b: string };
let users: { ann: string; bob: string };
const session = useToolSessions();

beforeAll(async () => {
  env = await createTestServices();
  const db = env.services.db;
  const store: MemoryStore = {
    store: (owner, input) => memories.storeMemory(db, owner, input),
    retrieve: (owner, key) => memories.retrieveMemory(db, owner, key),
    delete: (owner, key) => memories.deleteMemory(db, owner, key),
    search: (owners, input) => memories.searchMemories(db, owners, input),
    list: (owner) => memories.listMemories(db, owner),
  };
  tool = memoryTool(store);
  const ann = await env.createUser();
  const bob = await env.createUser();
  users = { ann: ann.id, bob: bob.id };
  const teamId = (await ensurePersonalTeam(db, ann)).id;
  const make = async (name: string) =>
    (await db.project.create({ data: { name, ownerId: ann.id, teamId }, select: { id: true } })).id;
  projects = { a: await make("A"), b: await make("B") };
});
afterAll(() => env.dispose());

/** Calls as the runtime makes them once a person approved (project stores ask: the runtime's tests cover that). */
const as = async (userId: string, projectId: string) => {
  const s = await session({ userId, projectId, grant: { plan: null, approvedById: userId } });
  return (input: Record<string, unknown>) => s.run(tool, input);
};

describe("memory tool", () => {
  it("refuses a project store no person approved, and marks what it stores as the agent's", async () => {
    const s = await session({ userId: users.ann, projectId: projects.b });
    expect((await s.run(tool, { action: "store", key: "unasked", value: "x" })).error?.code).toBe("UNAVAILABLE");
    expect(await memories.listMemories(env.services.db, { scope: "project", projectId: projects.b })).toEqual([]);
    const ann = await as(users.ann, projects.b);
    await ann({ action: "store", key: "asked", value: "y" });
    expect(await memories.listMemories(env.services.db, { scope: "project", projectId: projects.b })).toMatchObject([
      { key: "asked", agentWritten: true, approvedBy: { id: users.ann } },
    ]);
    await ann({ action: "delete", key: "asked" });
  });

  it("stores, retrieves, replaces and deletes", async () => {
    const ann = await as(users.ann, projects.a);
    expect((await ann({ action: "store", key: "test-command", value: "npm run test:unit" })).llm).toMatch(
      /Stored project memory/,
    );
    expect((await ann({ action: "retrieve", key: "test-command" })).llm).toBe("npm run test:unit");
    await ann({ action: "store", key: "test-command", value: "npx vitest run" });
    expect((await ann({ action: "retrieve", key: "test-command" })).llm).toBe("npx vitest run");
    expect((await ann({ action: "delete", key: "test-command" })).llm).toMatch(/Deleted/);
    expect((await ann({ action: "retrieve", key: "test-command" })).error?.code).toBe("NOT_FOUND");
    expect((await ann({ action: "store", key: "x" })).error?.code).toBe("INVALID_INPUT");
  });

  it("ranks full-text matches with a 0–1 score that threshold filters", async () => {
    const ann = await as(users.ann, projects.a);
    await ann({
      action: "store",
      key: "database",
      value: "The project uses PostgreSQL 18 through Prisma with hand-written migrations.",
    });
    await ann({
      action: "store",
      key: "postgres-tuning",
      value: "PostgreSQL needs shared_buffers raised; PostgreSQL connections are pooled.",
    });
    await ann({ action: "store", key: "styling", value: "Components use CSS modules, never inline styles." });
    const all = await ann({ action: "search", query: "postgresql migrations" });
    const table = all.display as { rows: string[][] };
    const rows = table.rows.map(([score, key]) => ({ score: Number(score), key }));
    expect(rows.map((r) => r.key)).toEqual(["database", "postgres-tuning"]);
    expect(rows.every((r) => r.score > 0 && r.score < 1)).toBe(true);
    expect(rows[0]!.score).toBeGreaterThan(rows[1]!.score);
    const strict = await ann({
      action: "search",
      query: "postgresql migrations",
      threshold: (rows[0]!.score + rows[1]!.score) / 2,
    });
    expect((strict.display as { rows: string[][] }).rows.map((r) => r[1])).toEqual(["database"]);
    expect((await ann({ action: "search", query: "kubernetes" })).llm).toMatch(/No memories match/);
  });

  it("keeps scopes apart: project memory per project, user memory per user across projects", async () => {
    const annA = await as(users.ann, projects.a);
    const annB = await as(users.ann, projects.b);
    const bobA = await as(users.bob, projects.a);
    await annA({ action: "store", key: "deploy", value: "Project A deploys with fly.io", scope: "project" });
    await annA({ action: "store", key: "editor", value: "Ann prefers tabs", scope: "user" });
    expect((await annB({ action: "retrieve", key: "deploy" })).error?.code).toBe("NOT_FOUND");
    expect((await annB({ action: "search", query: "deploys fly" })).llm).toMatch(/No memories match/);
    expect((await bobA({ action: "retrieve", key: "deploy" })).llm).toBe("Project A deploys with fly.io");
    expect((await annB({ action: "retrieve", key: "editor", scope: "user" })).llm).toBe("Ann prefers tabs");
    expect((await bobA({ action: "retrieve", key: "editor", scope: "user" })).error?.code).toBe("NOT_FOUND");
    expect((await bobA({ action: "search", query: "tabs", scope: "user" })).llm).toMatch(/No user memories/);
  });

  it("lists and exports as markdown", async () => {
    const annA = await as(users.ann, projects.a);
    const listed = await annA({ action: "list" });
    expect(listed.llm).toMatch(/- database: The project uses PostgreSQL/);
    const rows = await memories.listMemories(env.services.db, { scope: "project", projectId: projects.a });
    expect(memoriesToMarkdown("Memory of A", rows)).toMatch(
      /^# Memory of A\n\n## database\n\nThe project uses PostgreSQL/,
    );
  });
});
