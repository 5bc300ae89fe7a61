import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as memories from "@/server/db/repositories/memories";
import { ensurePersonalTeam } from "@/server/db/repositories/teams";
import { createTestServices } from "@/server/test/services";
import { useToolSessions } from "@/server/test/tool-session";
import type { MemoryStore } from "./memory";
import { assertFactTool, recordEpisodeTool } from "./memory-records";
import { rememberPreferenceTool } from "./remember-preference";
import { toolForcesApproval } from "./registry";

// record_episode and assert_fact on the real memory store: what they write is an ordinary memory
// (listed, searched), a project one only with a person's approval.

let env: Awaited<ReturnType<typeof createTestServices>>;
let store: MemoryStore;
let ann = "";
let project = "";
const session = useToolSessions();

beforeAll(async () => {
  env = await createTestServices();
  const db = env.services.db;
  store = {
    store: (owner, input) => memories.storeMemory(db, owner, input),
    retrieve: (owner, key) => memories.retrieveMemory(db, owner, key),
    delete: (owner, key) => memories.deleteMemory(db, owner, key),
    search: (owners, input) => memories.searchMemories(db, owners, input),
    list: (owner) => memories.listMemories(db, owner),
  };
  const user = await env.createUser();
  ann = user.id;
  const teamId = (await ensurePersonalTeam(db, user)).id;
  project = (await db.project.create({ data: { name: "Shop", ownerId: ann, teamId }, select: { id: true } })).id;
});
afterAll(() => env.dispose());

describe("record_episode", () => {
  it("keeps an episode as a searchable memory with its outcome and lessons", async () => {
    const s = await session({ userId: ann, projectId: project, grant: { plan: null, approvedById: ann } });
    const tool = recordEpisodeTool(store);
    const run = await s.run(tool, {
      title: "Fix the flaky login test",
      summary: "The test raced the session cookie; waiting for the redirect fixed it.",
      outcome: "success",
      lessons: ["Wait for navigation, not a timeout"],
    });
    expect(run.llm).toMatch(
      /^Recorded project episode "episode\/\d{4}-\d\d-\d\dT\d\d:\d\d\/fix-the-flaky-login-test"\.$/,
    );
    const hits = await store.search([{ scope: "project", projectId: project }], {
      query: "flaky login",
      limit: 5,
      threshold: 0,
    });
    expect(hits[0]?.value).toContain("(success,");
    expect(hits[0]?.value).toContain("- Wait for navigation, not a timeout");
  });

  it("asks a person for project scope and refuses without one; user scope needs none", async () => {
    const s = await session({ userId: ann, projectId: project });
    const tool = recordEpisodeTool(store);
    const input = { title: "t", summary: "s", outcome: "partial" };
    expect(await toolForcesApproval(tool, input, s.ctx)).toBe("always");
    expect((await s.run(tool, input)).error?.code).toBe("UNAVAILABLE");
    expect(await toolForcesApproval(tool, { ...input, scope: "user" }, s.ctx)).toBe(false);
    expect((await s.run(tool, { ...input, scope: "user" })).error).toBeUndefined();
  });
});

describe("assert_fact", () => {
  it("stores a fact under subject and predicate, replaces it when asserted anew, and says what it replaced", async () => {
    const s = await session({ userId: ann, projectId: project });
    const tool = assertFactTool(store);
    const first = await s.run(tool, {
      subject: "API server",
      predicate: "listens on",
      object: "port 4000",
      scope: "user",
    });
    expect(first.llm).toBe('Asserted user fact "fact/api-server/listens-on": API server listens on port 4000.');
    const again = await s.run(tool, {
      subject: "API server",
      predicate: "listens on",
      object: "port 4000",
      scope: "user",
    });
    expect(again.llm).toMatch(/^Already known/);
    const changed = await s.run(tool, {
      subject: "api server",
      predicate: "Listens on",
      object: "port 5000",
      scope: "user",
    });
    expect(changed.meta?.replaced).toBe("API server listens on port 4000");
    const owner = { scope: "user" as const, userId: ann };
    expect((await store.list(owner)).filter((m) => m.key.startsWith("fact/"))).toMatchObject([
      { key: "fact/api-server/listens-on", value: "api server Listens on port 5000" },
    ]);
  });
});

describe("remember_preference", () => {
  it("keeps nothing when someone other than the person approved the call", async () => {
    const s = await session({ userId: ann, projectId: project, grant: { plan: null, approvedById: "someone-else" } });
    const run = await s.run(rememberPreferenceTool(store), { preference: "Short commit messages" });
    expect(run.error?.code).toBe("DENIED");
    expect((await store.list({ scope: "user", userId: ann })).map((m) => m.key)).not.toContain(
      "preference/short-commit-messages",
    );
  });
});
