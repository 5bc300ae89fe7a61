import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renameSymbolTool } from "./rename-symbol";
import { TS_PROJECT, useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("rename_symbol", () => {
  it("renames a function across three files in one change", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    const run = await s.run(renameSymbolTool, { symbol: "area", new_name: "surface" }, { language });
    expect(run.error).toBeUndefined();
    expect(run.llm).toMatch(/^Renamed to 'surface' in 3 files:/);
    expect(run.display.kind === "diff" && run.display.files.map((f) => f.path).sort()).toEqual([
      "src/a.ts",
      "src/b.ts",
      "src/shapes.ts",
    ]);
    expect(await readFile(path.join(s.root, "src/a.ts"), "utf8")).toBe(
      'import { surface } from "./shapes";\nexport const small = surface(1, 2);\n',
    );
    expect(await readFile(path.join(s.root, "src/shapes.ts"), "utf8")).toContain("export function surface(");
  }, 60_000);

  it("changes nothing when the position names no symbol", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    const run = await s.run(renameSymbolTool, { path: "src/a.ts", line: 2, column: 27, new_name: "x" }, { language });
    expect(run.error?.code).toBe("UNAVAILABLE");
    expect(await readFile(path.join(s.root, "src/a.ts"), "utf8")).toBe(TS_PROJECT["src/a.ts"]);
    expect((await s.run(renameSymbolTool, { symbol: "area", new_name: "two words" }, { language })).error?.code).toBe(
      "INVALID_INPUT",
    );
  }, 60_000);
});
