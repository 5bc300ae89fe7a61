import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileOperationsTool, orderWaves } from "./file-operations";
import { readFileTool } from "./read-file";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();

async function project() {
  const s = await session();
  await mkdir(path.join(s.root, "src"));
  await writeFile(path.join(s.root, "src/a.ts"), "export const a = 1;\n");
  await writeFile(path.join(s.root, "src/b.ts"), "export const b = 2;\n");
  await writeFile(path.join(s.root, "old.md"), "# Old\n");
  for (const name of ["src/a.ts", "src/b.ts", "old.md"]) await s.run(readFileTool, { path: name });
  const file = (name: string) => readFile(path.join(s.root, name), "utf8").catch(() => null);
  return { ...s, file };
}

type Result = {
  summary: {
    applied: boolean;
    operations: number;
    succeeded: number;
    failed: number;
    waves: number;
    filesChanged: number;
  };
  operations: { id: string; op: string; status: string; wave: number; detail?: string; error?: { code: string } }[];
};

describe("file_operations", () => {
  it("reads, edits, writes, moves and deletes in one transaction, with a summary and each operation's result", async () => {
    const s = await project();
    const run = await s.run(fileOperationsTool, {
      operations: [
        { op: "edit", path: "src/a.ts", old_string: "a = 1", new_string: "a = 10" },
        { op: "read", path: "src/a.ts" },
        { op: "write", path: "src/c.ts", content: "export const c = 3;\n" },
        { op: "move", path: "old.md", to: "docs/new.md" },
        { op: "delete", path: "src/b.ts" },
      ],
    });
    expect(run.error).toBeUndefined();
    const result = JSON.parse(run.llm as string) as Result;
    expect(result.summary).toMatchObject({ applied: true, operations: 5, succeeded: 5, failed: 0, filesChanged: 5 });
    // The read waits for the edit of the same file; the other three are independent of both.
    expect(result.operations.map((o) => o.wave)).toEqual([0, 1, 0, 0, 0]);
    expect(result.operations[1]!.detail).toContain("a = 10");
    expect(await s.file("src/a.ts")).toBe("export const a = 10;\n");
    expect(await s.file("src/c.ts")).toBe("export const c = 3;\n");
    expect(await s.file("docs/new.md")).toBe("# Old\n");
    expect(await s.file("old.md")).toBeNull();
    expect(await s.file("src/b.ts")).toBeNull();
    expect(run.display).toMatchObject({ kind: "diff" });
  });

  it("one failing operation leaves every file as it was, and every failure is named", async () => {
    const s = await project();
    const run = await s.run(fileOperationsTool, {
      operations: [
        { op: "write", path: "src/new.ts", content: "x\n" },
        { op: "move", path: "src/a.ts", to: "src/moved.ts" },
        { op: "edit", path: "src/b.ts", old_string: "not there", new_string: "y" },
        { op: "delete", path: "missing.ts" },
      ],
    });
    expect(run.error?.code).toBe("NO_MATCH");
    const result = JSON.parse(run.llm as string) as Result;
    expect(result.summary).toMatchObject({ applied: false, failed: 2 });
    expect(result.operations.map((o) => o.status)).toEqual(["ok", "ok", "failed", "failed"]);
    expect(await s.file("src/new.ts")).toBeNull();
    expect(await s.file("src/moved.ts")).toBeNull();
    expect(await s.file("src/a.ts")).toBe("export const a = 1;\n");
  });

  it("orders by `after` and by path; a cycle or an unknown id fails the call before anything changes", async () => {
    const ops = [
      { op: "write" as const, path: "a", content: "" },
      { op: "write" as const, path: "b", content: "", after: ["x"], id: "y" },
      { op: "write" as const, path: "c", content: "", id: "x" },
      { op: "read" as const, path: "a" },
    ];
    expect(orderWaves(ops, ["0", "y", "x", "3"]).waveOf).toEqual([0, 1, 0, 1]);
    const s = await project();
    const run = await s.run(fileOperationsTool, {
      operations: [
        { op: "write", path: "p.ts", content: "1", id: "p", after: ["q"] },
        { op: "write", path: "q.ts", content: "2", id: "q", after: ["p"] },
        { op: "write", path: "r.ts", content: "3" },
      ],
    });
    expect(run.error?.code).toBe("INVALID_INPUT");
    expect(await s.file("r.ts")).toBeNull();
  });

  it("refuses to change a file the session has not read, and a move onto an existing file", async () => {
    const s = await project();
    await writeFile(path.join(s.root, "unseen.ts"), "secret plan\n");
    let run = await s.run(fileOperationsTool, { operations: [{ op: "delete", path: "unseen.ts" }] });
    expect(run.error?.code).toBe("STALE_READ");
    run = await s.run(fileOperationsTool, { operations: [{ op: "move", path: "src/a.ts", to: "src/b.ts" }] });
    expect(run.error?.code).toBe("EXISTS");
    // Reading it first in the same call counts as having seen it.
    run = await s.run(fileOperationsTool, {
      operations: [
        { op: "read", path: "unseen.ts" },
        { op: "delete", path: "unseen.ts" },
      ],
    });
    expect(run.error).toBeUndefined();
    expect(await s.file("unseen.ts")).toBeNull();
  });

  it("never leaves the workspace: a link out is refused and a move through a linked folder stays inside", async () => {
    const s = await project();
    const outside = s.outside;
    await writeFile(path.join(outside, "target.txt"), "host file\n");
    await symlink(outside, path.join(s.root, "out"));
    const run = await s.run(fileOperationsTool, {
      operations: [
        { op: "move", path: "src/a.ts", to: "out/a.ts" },
        { op: "delete", path: "out/target.txt" },
      ],
    });
    expect(run.error).toBeDefined();
    expect(await readdir(outside)).toEqual(["target.txt"]);
    expect(await s.file("src/a.ts")).toBe("export const a = 1;\n");
  });
});
