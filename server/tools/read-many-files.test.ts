import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readManyFilesTool } from "./read-many-files";
import { useToolSessions } from "@/server/test/tool-session";
import { writeFileTool } from "./write-file";

const session = useToolSessions();

describe("read_many_files", () => {
  it("concatenates files, folders and patterns with a header each, skipping binaries and ignored files", async () => {
    const s = await session();
    await mkdir(path.join(s.root, "src/lib"), { recursive: true });
    await writeFile(path.join(s.root, ".gitignore"), "gen/\n");
    await mkdir(path.join(s.root, "gen"));
    await writeFile(path.join(s.root, "gen/out.ts"), "generated\n");
    await writeFile(path.join(s.root, "src/a.ts"), "a\n");
    await writeFile(path.join(s.root, "src/lib/b.ts"), "b1\r\nb2\r\n");
    await writeFile(path.join(s.root, "src/logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]));
    await writeFile(path.join(s.root, "notes.md"), "");
    const run = await s.run(readManyFilesTool, { paths: ["**/*.ts", "src", "notes.md", "missing.md", "*.none"] });
    const text = run.llm as string;
    expect(text).toContain("--- src/a.ts ---\n     1\ta");
    expect(text).toContain("--- src/lib/b.ts ---\n     1\tb1\n     2\tb2");
    expect(text).toContain("--- notes.md ---\n(empty)");
    expect(text.match(/--- src\/a.ts ---/g)).toHaveLength(1);
    expect(text).not.toContain("generated");
    expect(text).toMatch(/src\/logo.png \(binary/);
    expect(text).toContain("missing.md ([NOT_FOUND]");
    expect(text).toContain("No files match '*.none'");
    // What it read counts as read: the file may now be overwritten.
    expect((await s.run(writeFileTool, { path: "src/a.ts", content: "A\n" })).error).toBeUndefined();
  });
});
