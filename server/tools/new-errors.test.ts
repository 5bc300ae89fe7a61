import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { listEvents } from "@/server/db/repositories/session-events";
import { createTestServices } from "@/server/test/services";
import { startModelServer } from "@/e2e/fixtures/model-server/server";
import { multiEditTool } from "./multi-edit";
import { readFileTool } from "./read-file";
import { writeFileTool } from "./write-file";
import { TS_PROJECT, useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

// After edit, multi_edit and write_file the result names the errors the change introduced, and
// only those: against the real TypeScript language server, through the real agent loop for `edit`.

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("new errors after an agent's edit (scripted model, real agent loop)", () => {
  let model: Awaited<ReturnType<typeof startModelServer>>;
  let env: Awaited<ReturnType<typeof createTestServices>>;
  beforeAll(async () => {
    model = await startModelServer();
    env = await createTestServices({ modelBaseUrl: model.url, language: true });
  }, 60_000);
  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  it("lists the new type error in the edit's tool result and card", async () => {
    const user = await env.createUser("admin");
    const caller = createCallerFactory(appRouter)(env.context(user));
    const project = await caller.project.create({ name: "Shapes" });
    await caller.agent.updateSettings({ projectId: project.id, approvalMode: "yolo" });
    const workspace = await env.services.files.open(project.id);
    await writeProject(workspace.root);
    // The TypeScript server's cold start (its first diagnostics of the project) happens here, not
    // inside the edit's wait for new errors, which a loaded machine can outlast.
    await env.services.language.forProject(project.id, workspace).problems("src/a.ts");
    model.load({
      replies: [
        { text: "Reading. ", toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/a.ts" } }] },
        {
          match: "export const small",
          text: "Editing. ",
          toolCalls: [
            {
              id: "call_edit",
              name: "edit",
              arguments: { path: "src/a.ts", old_string: "area(1, 2)", new_string: 'area(1, "2")' },
            },
          ],
        },
        { match: "new error", text: "I broke it; fixing next." },
      ],
    });
    const { id: sessionId } = await caller.session.create({ projectId: project.id });
    await caller.session.send({ sessionId, text: "Make small use a string" });
    await env.services.agent.idle(sessionId);
    const results = (await listEvents(env.services.db, sessionId)).filter((e) => e.type === "tool_result");
    const edit = results.find((e) => e.payload.toolName === "edit")!.payload as {
      llm: string;
      display: { problems?: { line: number; code: number }[] };
    };
    expect(edit.llm).toContain("The change introduced 1 new error:");
    expect(edit.llm).toMatch(
      /src\/a\.ts:2:30 error \[typescript 2345\]: Argument of type 'string' is not assignable to parameter of type 'number'/,
    );
    expect(edit.display.problems).toEqual([expect.objectContaining({ line: 2, code: 2345 })]);
  }, 90_000);
});

describe("new errors after multi_edit and write_file", () => {
  it("reports only errors that were not there before, in every touched file", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    for (const file of ["src/b.ts", "src/broken.ts"]) await s.run(readFileTool, { path: file });
    // broken.ts already has an error: it must not be reported again.
    const run = await s.run(
      multiEditTool,
      {
        edits: [
          { path: "src/b.ts", old_string: "area(10, 20)", new_string: "area(10)" },
          { path: "src/broken.ts", old_string: '"three"', new_string: '"four"' },
        ],
      },
      { language },
    );
    expect(run.llm).toContain("The change introduced 1 new error:");
    expect(run.llm).toMatch(/src\/b\.ts:2:\d+ error \[typescript 2554\]: Expected 2 arguments, but got 1/);
    expect(run.llm).not.toContain("src/broken.ts:1");

    const write = await s.run(
      writeFileTool,
      { path: "src/c.ts", content: "export const ok: number = 1;\n" },
      { language },
    );
    expect(write.llm).not.toContain("new error");
    const fixed = await s.run(writeFileTool, { path: "src/b.ts", content: TS_PROJECT["src/b.ts"]! }, { language });
    expect(fixed.llm).not.toContain("new error");
    expect(await readFile(path.join(s.root, "src/b.ts"), "utf8")).toBe(TS_PROJECT["src/b.ts"]);
  }, 90_000);
});
