import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll } from "vitest";
import { createLanguageServers } from "@/server/language/language-servers";
import type { ToolContext } from "@/server/tools/define-tool";
import type { Workspace } from "@/server/workspace";
import { testSandbox } from "./sandbox";

/** A small TypeScript project: `area` is defined in shapes.ts and used in a.ts and b.ts; broken.ts has a type error. */
export const TS_PROJECT: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, target: "es2022", module: "esnext", moduleResolution: "bundler", noEmit: true },
  }),
  "src/shapes.ts": "export function area(width: number, height: number): number {\n  return width * height;\n}\n",
  "src/a.ts": 'import { area } from "./shapes";\nexport const small = area(1, 2);\n',
  "src/b.ts": 'import { area } from "./shapes";\nexport const large = area(10, 20);\n',
  "src/broken.ts": 'export const count: number = "three";\n',
};

export async function writeProject(root: string, files: Record<string, string> = TS_PROJECT): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
}

/**
 * Real language servers for a test file, shut down after it; `languageFor(workspace)` gives a tool
 * context's `language`. Each test's workspace gets its own project id (and so its own server).
 */
export function useLanguageServers(): (workspace: Workspace) => NonNullable<ToolContext["language"]> {
  const servers = createLanguageServers({ sandbox: testSandbox("none") });
  afterAll(() => servers.dispose());
  return (workspace) => servers.forProject(workspace.root, workspace);
}
