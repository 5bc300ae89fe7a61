import { execFile } from "node:child_process";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { expectCode, useTempDirs } from "@/server/test/temp-dirs";
import { commitFiles, recoverTransactions, type CommitStep } from "./transaction";
import { versionOf } from "./file-limits";
import { Workspace } from "./workspace";

const tempDir = useTempDirs();
const run = promisify(execFile);

async function fiveFiles() {
  const root = await tempDir();
  const names = ["a.txt", "b.txt", "sub/c.txt", "d.txt", "e.txt"];
  await import("node:fs/promises").then((fs) => fs.mkdir(path.join(root, "sub")));
  for (const name of names) await writeFile(path.join(root, name), `old ${name}\n`);
  const workspace = await Workspace.open(root);
  const writes = names.map((name) => ({
    path: name,
    bytes: Buffer.from(`new ${name}\n`),
    expectedVersion: versionOf(Buffer.from(`old ${name}\n`)),
  }));
  const contents = () => Promise.all(names.map((name) => readFile(path.join(root, name), "utf8")));
  return { root, names, workspace, writes, contents };
}

/** Runs a commit in a child process that SIGKILLs itself at `step`: a real crash, no cleanup. */
async function crashAt(root: string, names: string[], step: CommitStep, deletes: string[] = []) {
  const module = path.join(import.meta.dirname, "transaction.ts");
  const workspaceModule = path.join(import.meta.dirname, "workspace.ts");
  const limitsModule = path.join(import.meta.dirname, "file-limits.ts");
  const code = `
    const { commitFiles } = await import(${JSON.stringify(module)});
    const { Workspace } = await import(${JSON.stringify(workspaceModule)});
    const { versionOf } = await import(${JSON.stringify(limitsModule)});
    const ws = await Workspace.open(${JSON.stringify(root)});
    const names = ${JSON.stringify(names)};
    const deletes = ${JSON.stringify(deletes)};
    await commitFiles(ws, names.map((n) => ({ path: n, bytes: deletes.includes(n) ? null : Buffer.from("new " + n + "\\n"), expectedVersion: versionOf(Buffer.from("old " + n + "\\n")) })),
      { onStep: (s) => { if (s === ${JSON.stringify(step)}) process.kill(process.pid, "SIGKILL"); } });
  `;
  await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: path.resolve(import.meta.dirname, "../.."),
  }).catch((error: { signal?: string }) => expect(error.signal).toBe("SIGKILL"));
}

describe("commitFiles", () => {
  it("writes every file", async () => {
    const t = await fiveFiles();
    await commitFiles(t.workspace, t.writes);
    expect(await t.contents()).toEqual(t.names.map((n) => `new ${n}\n`));
    expect(await readdir(path.join(t.root, ".tandem/transactions"))).toEqual([]);
  });

  it("writes nothing when one file changed since it was read", async () => {
    const t = await fiveFiles();
    await writeFile(path.join(t.root, "d.txt"), "someone else\n");
    await expectCode(commitFiles(t.workspace, t.writes), "CONFLICT");
    const now = await t.contents();
    expect(now.filter((c) => c.startsWith("new"))).toEqual([]);
  });

  it("after a crash before the commit point, recovery leaves all old contents", async () => {
    const t = await fiveFiles();
    await crashAt(t.root, t.names, "prepared");
    await recoverTransactions(t.workspace);
    expect(await t.contents()).toEqual(t.names.map((n) => `old ${n}\n`));
    const leftovers = (await readdir(t.root)).filter((n) => n.endsWith(".tmp"));
    expect(leftovers).toEqual([]);
  });

  it("after a crash part-way through the renames, recovery leaves all new contents", async () => {
    const t = await fiveFiles();
    await crashAt(t.root, t.names, "renamed:1");
    const mixed = await t.contents();
    expect(mixed.filter((c) => c.startsWith("new")).length).toBe(2);
    await recoverTransactions(t.workspace);
    expect(await t.contents()).toEqual(t.names.map((n) => `new ${n}\n`));
  });
});

describe("commitFiles with deletes", () => {
  it("deletes a file with the writes, and not at all when another file moved on", async () => {
    const t = await fiveFiles();
    const writes = t.writes.map((w) => (w.path === "b.txt" ? { ...w, bytes: null } : w));
    await writeFile(path.join(t.root, "e.txt"), "someone else\n");
    await expectCode(commitFiles(t.workspace, writes), "CONFLICT");
    expect(await readFile(path.join(t.root, "b.txt"), "utf8")).toBe("old b.txt\n");
    await writeFile(path.join(t.root, "e.txt"), "old e.txt\n");
    await commitFiles(t.workspace, writes);
    expect(await readdir(t.root)).not.toContain("b.txt");
  });

  it("a crash after the commit point: recovery finishes the delete; before it: the file stays", async () => {
    const t = await fiveFiles();
    await crashAt(t.root, t.names, "prepared", ["b.txt"]);
    await recoverTransactions(t.workspace);
    expect(await readFile(path.join(t.root, "b.txt"), "utf8")).toBe("old b.txt\n");
    await crashAt(t.root, t.names, "committed", ["b.txt"]);
    await recoverTransactions(t.workspace);
    expect(await readdir(t.root)).not.toContain("b.txt");
    expect(await readFile(path.join(t.root, "a.txt"), "utf8")).toBe("new a.txt\n");
  });
});

describe("a journal planted by a member", () => {
  it("moves nothing across the workspace's edge when recovered", async () => {
    const root = await tempDir();
    const host = await tempDir(); // stands for a root-only host folder
    await writeFile(path.join(host, "secret.txt"), "host secret");
    await writeFile(path.join(root, "mine.txt"), "workspace file");
    const hostRel = path.relative(root, host);
    await import("node:fs/promises").then((fs) =>
      fs.mkdir(path.join(root, ".tandem/transactions"), { recursive: true }),
    );
    const journal = {
      state: "commit",
      files: [
        { temp: `${hostRel}/secret.txt`, target: "stolen.txt" },
        { temp: "mine.txt", target: `${hostRel}/planted.txt` },
      ],
    };
    await writeFile(path.join(root, ".tandem/transactions/evil.json"), JSON.stringify(journal));
    await recoverTransactions(await Workspace.open(root));
    expect((await readdir(host)).sort()).toEqual(["secret.txt"]);
    expect(await readdir(root)).not.toContain("stolen.txt");
    expect(await readdir(path.join(root, ".tandem/transactions"))).toEqual([]);
  });
});
