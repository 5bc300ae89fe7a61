import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { multiEditTool } from "./multi-edit";
import { readFileTool } from "./read-file";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();

async function threeFiles() {
  const s = await session();
  await mkdir(path.join(s.root, "src"));
  const files = {
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\nexport const bb = 2;\n",
    "c.md": "# Title\r\n\r\nText\r\n",
  };
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(s.root, name), content);
    await s.run(readFileTool, { path: name });
  }
  const snapshot = () => Promise.all(Object.keys(files).map((name) => readFile(path.join(s.root, name))));
  return { ...s, files, snapshot };
}

describe("multi_edit", () => {
  it("one failing edit among five leaves every file unchanged and names its index", async () => {
    const s = await threeFiles();
    const before = await s.snapshot();
    const run = await s.run(multiEditTool, {
      edits: [
        { path: "src/a.ts", old_string: "a = 1", new_string: "a = 10" },
        { path: "src/b.ts", old_string: "const b = 2;", new_string: "const b = 20;" },
        { path: "c.md", old_string: "Text", new_string: "Body" },
        { path: "src/a.ts", old_string: "does not exist", new_string: "x" },
        { path: "new.ts", old_string: "", new_string: "created\n" },
      ],
    });
    expect(run.error?.code).toBe("NO_MATCH");
    expect(run.llm).toContain("edit 3 (src/a.ts)");
    expect(run.llm).toContain("no file was changed");
    expect(run.meta?.failedIndexes).toEqual([3]);
    const after = await s.snapshot();
    after.forEach((bytes, i) => expect(bytes.equals(before[i]!)).toBe(true));
    await expect(readFile(path.join(s.root, "new.ts"))).rejects.toThrow();
  });

  it("reports every failing edit, with its own code", async () => {
    const s = await threeFiles();
    const run = await s.run(multiEditTool, {
      edits: [
        { path: "src/b.ts", old_string: "export", new_string: "x" },
        { path: "missing.ts", old_string: "y", new_string: "x" },
        { path: "../escape.ts", old_string: "", new_string: "x" },
      ],
    });
    expect(run.error?.code).toBe("AMBIGUOUS_MATCH");
    expect(run.llm).toContain("edit 0");
    expect(run.llm).toContain("edit 1 (missing.ts): [NOT_FOUND]");
    expect(run.llm).toContain("edit 2 (../escape.ts): [OUTSIDE_WORKSPACE]");
  });

  it("applies all edits across files, in order, keeping each file's line endings", async () => {
    const s = await threeFiles();
    const run = await s.run(multiEditTool, {
      edits: [
        { path: "src/a.ts", old_string: "a = 1", new_string: "a = 10" },
        { path: "src/a.ts", old_string: "a = 10", new_string: "a = 100" },
        { path: "src/b.ts", old_string: "2", new_string: "3", replace_all: true },
        { path: "c.md", old_string: "Text", new_string: "Body\nMore" },
        { path: "lib/new.ts", old_string: "", new_string: "export {};\n" },
      ],
    });
    expect(run.error).toBeUndefined();
    expect(await readFile(path.join(s.root, "src/a.ts"), "utf8")).toBe("export const a = 100;\n");
    expect(await readFile(path.join(s.root, "src/b.ts"), "utf8")).toBe("export const b = 3;\nexport const bb = 3;\n");
    expect(await readFile(path.join(s.root, "c.md"), "utf8")).toBe("# Title\r\n\r\nBody\r\nMore\r\n");
    expect(await readFile(path.join(s.root, "lib/new.ts"), "utf8")).toBe("export {};\n");
    expect(run.display.kind === "diff" && run.display.files.length).toBe(4);
  });

  it("refuses the whole set when one file was changed by someone since it was read", async () => {
    const s = await threeFiles();
    await writeFile(path.join(s.root, "src/b.ts"), "export const b = 5;\n");
    const run = await s.run(multiEditTool, {
      edits: [
        { path: "src/a.ts", old_string: "a = 1", new_string: "a = 10" },
        { path: "src/b.ts", old_string: "b = 5", new_string: "b = 6" },
      ],
    });
    expect(run.error?.code).toBe("STALE_READ");
    expect(await readFile(path.join(s.root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
  });
});
