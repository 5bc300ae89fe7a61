import { readFile, readdir, writeFile } from "node:fs/promises";
import * as fsp from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { readFileTool } from "./read-file";
import { useToolSessions } from "@/server/test/tool-session";
import { writeFileTool } from "./write-file";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, rename: vi.fn(actual.rename) };
});

const session = useToolSessions();

describe("write_file", () => {
  it("creates a new file and its parent folders", async () => {
    const s = await session();
    const run = await s.run(writeFileTool, { path: "a/b/c.txt", content: "hi\n" });
    expect(run.error).toBeUndefined();
    expect(await readFile(path.join(s.root, "a/b/c.txt"), "utf8")).toBe("hi\n");
    expect(run.display.kind).toBe("diff");
  });

  it("refuses to overwrite a file this session has not read", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "x.txt"), "mine\n");
    const run = await s.run(writeFileTool, { path: "x.txt", content: "agent\n" });
    expect(run.error?.code).toBe("STALE_READ");
    expect(await readFile(path.join(s.root, "x.txt"), "utf8")).toBe("mine\n");
  });

  it("refuses to overwrite a file that changed since it was read, and overwrites after a new read", async () => {
    const s = await session();
    const file = path.join(s.root, "x.txt");
    await writeFile(file, "v1\r\n");
    await s.run(readFileTool, { path: "x.txt" });
    await writeFile(file, "v2 by a person\r\n");
    const stale = await s.run(writeFileTool, { path: "x.txt", content: "agent\n" });
    expect(stale.error?.code).toBe("STALE_READ");
    expect(await readFile(file, "utf8")).toBe("v2 by a person\r\n");
    await s.run(readFileTool, { path: "x.txt" });
    const run = await s.run(writeFileTool, { path: "x.txt", content: "agent\nline 2\n" });
    expect(run.error).toBeUndefined();
    expect(await readFile(file, "utf8")).toBe("agent\r\nline 2\r\n");
  });

  it("a crash between the write and the rename leaves the old file intact", async () => {
    const s = await session();
    const file = path.join(s.root, "x.txt");
    await writeFile(file, "old content\n");
    await s.run(readFileTool, { path: "x.txt" });
    let reached!: () => void;
    const atRename = new Promise<void>((resolve) => (reached = resolve));
    // The process "dies" at the rename: it never happens and nothing after it runs.
    vi.mocked(fsp.rename).mockImplementationOnce(() => {
      reached();
      return new Promise<void>(() => undefined);
    });
    void s.run(writeFileTool, { path: "x.txt", content: "new content\n" });
    await atRename;
    expect(await readFile(file, "utf8")).toBe("old content\n");
    const temps = (await readdir(s.root)).filter((n) => n.endsWith(".tmp"));
    expect(temps).toHaveLength(1);
    expect(await readFile(path.join(s.root, temps[0]!), "utf8")).toBe("new content\n");
  });

  it("a failed rename reports an error and leaves the old file and no temp behind", async () => {
    const s = await session();
    const file = path.join(s.root, "x.txt");
    await writeFile(file, "old\n");
    await s.run(readFileTool, { path: "x.txt" });
    vi.mocked(fsp.rename).mockRejectedValueOnce(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
    const run = await s.run(writeFileTool, { path: "x.txt", content: "new\n" });
    expect(run.error).toBeDefined();
    expect(await readFile(file, "utf8")).toBe("old\n");
    expect((await readdir(s.root)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
