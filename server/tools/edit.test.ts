import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "./edit";
import { readFileTool } from "./read-file";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();

async function setup(name: string, bytes: string | Buffer) {
  const s = await session();
  const file = path.join(s.root, name);
  await writeFile(file, bytes);
  await s.run(readFileTool, { path: name });
  return { ...s, file };
}

async function expectUnchanged(file: string, before: Buffer) {
  expect((await readFile(file)).equals(before)).toBe(true);
}

describe("edit", () => {
  it("replaces a unique match and returns a diff for display", async () => {
    const s = await setup("a.ts", "const a = 1;\nconst b = 2;\n");
    const run = await s.run(editTool, { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 3;" });
    expect(run.error).toBeUndefined();
    expect(await readFile(s.file, "utf8")).toBe("const a = 1;\nconst b = 3;\n");
    expect(run.llm).toContain("line 2");
    expect(run.display.kind).toBe("diff");
    if (run.display.kind === "diff") expect(run.display.files[0]!.diff).toContain("+const b = 3;");
    expect(run.metrics.ok).toBe(true);
  });

  it("reports NO_MATCH with the closest lines and leaves the bytes alone", async () => {
    const s = await setup("a.ts", "function add(a, b) {\n  return a + b;\n}\n");
    const before = await readFile(s.file);
    const run = await s.run(editTool, { path: "a.ts", old_string: "  return a - b;", new_string: "  return 0;" });
    expect(run.error?.code).toBe("NO_MATCH");
    expect(run.llm).toContain("return a + b;");
    expect(run.llm).toMatch(/Lines 2-2/);
    await expectUnchanged(s.file, before);
  });

  it("hints when only whitespace differs", async () => {
    const s = await setup("a.py", "def f():\n    return 1\n");
    const run = await s.run(editTool, { path: "a.py", old_string: "def f():\n  return 1", new_string: "x" });
    expect(run.error?.code).toBe("NO_MATCH");
    expect(run.llm).toContain("whitespace");
  });

  it("reports AMBIGUOUS_MATCH with the count and line numbers", async () => {
    const s = await setup("a.txt", "x = 1\ny = 2\nx = 1\nx = 1\n");
    const before = await readFile(s.file);
    const run = await s.run(editTool, { path: "a.txt", old_string: "x = 1", new_string: "x = 9" });
    expect(run.error?.code).toBe("AMBIGUOUS_MATCH");
    expect(run.llm).toContain("3 times");
    expect(run.llm).toContain("lines 1, 3, 4");
    await expectUnchanged(s.file, before);
  });

  it("replace_all changes every occurrence", async () => {
    const s = await setup("a.txt", "x = 1\ny = 2\nx = 1\n");
    const run = await s.run(editTool, { path: "a.txt", old_string: "x = 1", new_string: "x = $&9", replace_all: true });
    expect(run.error).toBeUndefined();
    expect(await readFile(s.file, "utf8")).toBe("x = $&9\ny = 2\nx = $&9\n");
  });

  it("keeps CRLF line endings, including in multi-line replacements", async () => {
    const s = await setup("win.txt", "one\r\ntwo\r\nthree\r\n");
    const run = await s.run(editTool, { path: "win.txt", old_string: "two\nthree", new_string: "2\n2.5\n3" });
    expect(run.error).toBeUndefined();
    expect(await readFile(s.file, "utf8")).toBe("one\r\n2\r\n2.5\r\n3\r\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    const s = await setup("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]));
    const run = await s.run(editTool, { path: "bom.txt", old_string: "héllo", new_string: "hallo" });
    expect(run.error).toBeUndefined();
    const bytes = await readFile(s.file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString()).toBe("hallo\n");
  });

  it("keeps UTF-16LE encoding", async () => {
    const s = await setup("u16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("abc\n", "utf16le")]));
    const run = await s.run(editTool, { path: "u16.txt", old_string: "b", new_string: "B" });
    expect(run.error).toBeUndefined();
    expect(
      (await readFile(s.file)).equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("aBc\n", "utf16le")])),
    ).toBe(true);
  });

  it("creates a missing file from an empty old_string, with parent folders", async () => {
    const s = await session();
    const run = await s.run(editTool, { path: "src/new/file.ts", old_string: "", new_string: "export {};\n" });
    expect(run.error).toBeUndefined();
    expect(await readFile(path.join(s.root, "src/new/file.ts"), "utf8")).toBe("export {};\n");
    // The session wrote it, so it may edit it again without reading.
    const again = await s.run(editTool, {
      path: "src/new/file.ts",
      old_string: "export {};",
      new_string: "export const x = 1;",
    });
    expect(again.error).toBeUndefined();
  });

  it("refuses a missing file with a non-empty old_string", async () => {
    const s = await session();
    const run = await s.run(editTool, { path: "nope.ts", old_string: "a", new_string: "b" });
    expect(run.error?.code).toBe("NOT_FOUND");
  });

  it("refuses with STALE_READ when the file was never read, or changed since", async () => {
    const s = await session();
    const file = path.join(s.root, "a.txt");
    await writeFile(file, "hello\n");
    const unread = await s.run(editTool, { path: "a.txt", old_string: "hello", new_string: "bye" });
    expect(unread.error?.code).toBe("STALE_READ");
    await s.run(readFileTool, { path: "a.txt" });
    await writeFile(file, "hello from a person\n");
    const stale = await s.run(editTool, { path: "a.txt", old_string: "hello", new_string: "bye" });
    expect(stale.error?.code).toBe("STALE_READ");
    expect(await readFile(file, "utf8")).toBe("hello from a person\n");
  });

  it("leaves the bytes unchanged after every kind of failure", async () => {
    const s = await setup("a.txt", "alpha\r\nbeta\r\nbeta\r\n");
    const before = await readFile(s.file);
    const attempts = [
      { path: "a.txt", old_string: "gamma", new_string: "x" },
      { path: "a.txt", old_string: "beta", new_string: "x" },
      { path: "a.txt", old_string: "alpha", new_string: "alpha" },
      { path: "a.txt", old_string: "", new_string: "x" },
      { path: "a.txt", old_string: 5, new_string: "x" },
    ];
    for (const input of attempts) {
      const run = await s.run(editTool, input);
      expect(run.error).toBeDefined();
      await expectUnchanged(s.file, before);
    }
  });

  it("names the bad field when the input does not validate", async () => {
    const s = await session();
    const run = await s.run(editTool, { path: "a.txt", old_string: 1 });
    expect(run.error?.code).toBe("INVALID_INPUT");
    expect(run.llm).toContain("old_string");
    expect(run.llm).toContain("new_string");
  });
});
