import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createTestServices } from "@/server/test/services";
import { writeProject } from "@/server/test/language-project";
import { until } from "@/server/test/until";
import type { Problem, ProjectLanguage } from "./project-language";

// Language servers added by configuration, through the running services: a project admin adds a
// server by command and file globs in the project's settings, and the agent's language queries
// (diagnostics, symbols, definition) reach it as they reach the built-in ones. The server is a
// real one: a second typescript-language-server, started by the configured command, serving .mts
// files here; the server admin's list (TANDEM_LANGUAGE_SERVERS) may bind Tandem's own packages.

const CLI = path.resolve("node_modules/typescript-language-server/lib/cli.mjs");
const FILES = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler" } }),
  "src/shapes.mts": "export function area(width: number, height: number): number {\n  return width * height;\n}\n",
  "src/use.mts": 'import { area } from "./shapes.mjs";\nexport const wrong: string = area(1, 2);\n',
};

let env: Awaited<ReturnType<typeof createTestServices>>;
const createCaller = createCallerFactory(appRouter);
let caller: ReturnType<typeof createCaller>;
beforeAll(async () => {
  env = await createTestServices({
    extensions: {},
    languageServers: {
      "admin-ts": {
        command: ["node", "{package:typescript-language-server}/lib/cli.mjs", "--stdio"],
        files: ["*.cts"],
        languageId: "typescript",
        packages: ["typescript-language-server", "typescript"],
      },
    },
  });
  caller = createCaller(env.context(await env.createUser("admin")));
}, 60_000);
afterAll(() => env?.dispose());

async function projectWith(languageServersText: string) {
  const project = await caller.project.create({ name: "Plugins" });
  const workspace = await env.services.files.open(project.id);
  await writeProject(workspace.root, FILES);
  const saved = await caller.extensions.updateSettings({ projectId: project.id, languageServersText });
  return { project, workspace, saved };
}

/** A cold server on a loaded machine may outlast the first wait for diagnostics: ask until it answered. */
async function problemsOf(language: ProjectLanguage, file: string): Promise<Problem[]> {
  let found: Problem[] = [];
  await until(async () => (found = await language.problems(file)).length > 0, `diagnostics of ${file}`, 80_000);
  return found;
}

const MTS = JSON.stringify({ mts: { command: ["node", CLI, "--stdio"], files: ["*.mts"], languageId: "typescript" } });

describe("language servers from configuration", () => {
  it("a project's server gets diagnostics, symbols and navigation like a built-in one", async () => {
    const { project, workspace, saved } = await projectWith(MTS);
    expect(saved).toEqual({ ok: true });
    const language = env.services.language.forProject(project.id, workspace);
    expect(await language.covers("src/use.mts")).toBe(true);
    const problems = await problemsOf(language, "src/use.mts");
    expect(problems).toEqual([
      expect.objectContaining({
        line: 2,
        severity: "error",
        message: expect.stringMatching(/not assignable to type 'string'/),
      }),
    ]);
    const symbols = await language.documentSymbols("src/shapes.mts");
    expect(symbols.map((s) => s.name)).toContain("area");
    const [definition] = await language.definition("src/use.mts", 2, 31);
    expect(definition).toMatchObject({ path: "src/shapes.mts", line: 1 });
    expect(env.services.language.status(project.id).map((s) => s.server)).toContain("mts");
    const settings = await caller.extensions.settings({ projectId: project.id });
    expect(JSON.parse(settings.languageServersText)).toEqual(JSON.parse(MTS));
  }, 120_000);

  it("refuses what it cannot run, saving nothing: bad JSON, no files, Tandem's packages from a project", async () => {
    const { project } = await projectWith("{}");
    const attempt = (text: string) =>
      caller.extensions.updateSettings({ projectId: project.id, languageServersText: text });
    expect(await attempt("{ not json")).toMatchObject({ ok: false, problems: [{ message: /not JSON/ }] });
    expect(await attempt(JSON.stringify({ go: { command: ["gopls"] } }))).toMatchObject({
      ok: false,
      problems: [{ message: /go\.files/ }],
    });
    expect(
      await attempt(
        JSON.stringify({
          x: { command: ["node", "{package:typescript}/bin/tsc"], files: ["*.x"], packages: ["typescript"] },
        }),
      ),
    ).toMatchObject({ ok: false, problems: [{ message: /only the server's admin/ }] });
    expect(JSON.parse((await caller.extensions.settings({ projectId: project.id })).languageServersText)).toEqual({});
  });

  it("the server admin's list binds Tandem's own packages, for every project", async () => {
    const { project, workspace } = await projectWith("");
    await writeProject(workspace.root, { "lib/old.cts": "export const n: number = 'no';\n" });
    const problems = await problemsOf(env.services.language.forProject(project.id, workspace), "lib/old.cts");
    expect(problems).toEqual([expect.objectContaining({ line: 1, severity: "error" })]);
    expect(env.services.language.status(project.id).map((s) => s.server)).toContain("admin-ts");
  }, 120_000);

  it("a file no server covers says which globs and extensions are covered", async () => {
    const { project, workspace } = await projectWith(MTS);
    await writeProject(workspace.root, { "main.go": "package main\n" });
    await expect(env.services.language.forProject(project.id, workspace).problems("main.go")).rejects.toThrow(
      /No language server covers 'main.go'. Covered: .*\*\.mts.* \.ts/,
    );
  });
});
