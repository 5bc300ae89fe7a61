import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createTestServices } from "@/server/test/services";
import { searchKnowledgeBaseTool } from "@/server/tools/search-knowledge-base";
import { runTool } from "@/server/tools/registry";
import { useToolSessions } from "@/server/test/tool-session";
import type { Workspace } from "@/server/workspace";
import { chunk, createKnowledgeIndex } from "./knowledge-index";

let env: Awaited<ReturnType<typeof createTestServices>>;
let projectId: string;
let workspace: Workspace;
let index: ReturnType<typeof createKnowledgeIndex>;
const session = useToolSessions();

beforeAll(async () => {
  env = await createTestServices();
  const user = await env.createUser();
  const caller = createCallerFactory(appRouter)(env.context(user));
  projectId = (await caller.project.create({ name: "Knowledge" })).id;
  workspace = await env.services.files.open(projectId);
  index = createKnowledgeIndex({ db: env.services.db });
});
afterAll(async () => {
  index.dispose();
  await env.dispose();
});

const write = async (rel: string, content: string) => {
  await fs.mkdir(path.dirname(path.join(workspace.root, rel)), { recursive: true });
  await fs.writeFile(path.join(workspace.root, rel), content);
};

describe("knowledge index", () => {
  it("cuts files into overlapping line windows", () => {
    const lines = Array.from({ length: 75 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(chunk(lines).map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 40],
      [31, 70],
      [61, 75],
    ]);
  });

  it("finds ranked passages with path and lines, honours .gitignore, and follows changes", async () => {
    await write("docs/deploy.md", "# Deploying\n\nWe ship with a blue-green rollout behind the load balancer.\n");
    await write("src/app.ts", "export const app = 1;\n");
    await write(".gitignore", "private/\n");
    await write("private/notes.md", "blue-green rollout secrets\n");
    const tool = searchKnowledgeBaseTool((ctx, input) =>
      index.search(ctx.projectId, ctx.workspace, input.query, input.limit),
    );
    const ctx = { ...(await session()).ctx, projectId, workspace };

    const first = await runTool(tool, { query: "how do we roll out deployments" }, ctx);
    expect(first.llm).toMatch(/^## docs\/deploy\.md:1-3 \(score/);
    expect(first.llm).toContain("blue-green rollout");
    expect(first.llm).not.toContain("private/");

    await write("docs/deploy.md", "# Deploying\n\nWe now ship canary releases to 5% of traffic first.\n");
    const changed = await runTool(tool, { query: "canary releases" }, ctx);
    expect(changed.llm).toContain("docs/deploy.md:1-3");
    expect(changed.llm).toContain("5% of traffic");
    expect((await runTool(tool, { query: "blue green" }, ctx)).llm).toMatch(/^No passage matches/);

    await fs.rm(path.join(workspace.root, "docs/deploy.md"));
    expect((await runTool(tool, { query: "canary" }, ctx)).llm).toMatch(/^No passage matches/);
    expect(await index.sync(projectId, workspace)).toEqual({ indexed: 0, removed: 0, unchanged: 2 });
  });
});
