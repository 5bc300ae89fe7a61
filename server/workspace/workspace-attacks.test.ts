import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileChange } from "@/lib/fs-schemas";
import { canSwapLinks, expectCode, startLinkSwapper, useTempDirs } from "@/server/test/temp-dirs";
import { watchWorkspace } from "./watch";
import { Workspace } from "./workspace";

// What a member's terminal can do to the server, which runs as root: the attacks of issue 38
// (defects 2 and 5) through the Workspace API, the entry point of the fs router and the tools.

const tempDir = useTempDirs();
let ws: Workspace;
let host: string;

beforeEach(async () => {
  ws = await Workspace.open(await tempDir());
  host = await tempDir(); // stands for a root-only host folder
});

/** The host folder as it must stay: names and contents. */
async function hostState(): Promise<Record<string, string>> {
  const names = (await readdir(host)).sort();
  return Object.fromEntries(
    await Promise.all(
      names.map(async (name) => [name, await readFile(path.join(host, name), "utf8").catch(() => "<folder>")] as const),
    ),
  );
}

describe.skipIf(!canSwapLinks)("a terminal exchanging a folder and a link to a host folder", () => {
  it("never lets read, write, create, mkdir, rename or delete reach the host", async () => {
    await writeFile(path.join(host, "secret.txt"), "host secret");
    await writeFile(path.join(host, "victim.txt"), "keep me");
    await writeFile(path.join(host, "moved.txt"), "stay here");
    const before = await hostState();
    await mkdir(path.join(ws.root, "d"));
    await writeFile(path.join(ws.root, "d/secret.txt"), "workspace text");
    await symlink(host, path.join(ws.root, "swap"));
    const swapper = await startLinkSwapper(path.join(ws.root, "d"), path.join(ws.root, "swap"));
    const leaks: string[] = [];
    let iterations = 0;
    const deadline = Date.now() + 10_000;
    try {
      for (; iterations < 200 && Date.now() < deadline && leaks.length === 0; iterations++) {
        const i = iterations;
        const read = await ws.read("d/secret.txt").catch(() => null);
        if (read?.kind === "text" && read.content === "host secret") leaks.push(`read at ${i}`);
        const bytes = await ws.readBytes("d/secret.txt").catch(() => null);
        if (bytes?.toString() === "host secret") leaks.push(`readBytes at ${i}`);
        await ws.write("d/secret.txt", `written ${i}`).catch(() => undefined);
        await ws.create(`d/new-${i}.txt`, "created").catch(() => undefined);
        await ws.mkdir(`d/folder-${i}`).catch(() => undefined);
        await ws.rename("d/moved.txt", `d/moved-${i}.txt`).catch(() => undefined);
        await ws.delete("d/victim.txt").catch(() => undefined);
        if (JSON.stringify(await hostState()) !== JSON.stringify(before)) leaks.push(`host changed at ${i}`);
      }
    } finally {
      expect(await swapper.stop()).toBeGreaterThan(0);
    }
    expect(leaks).toEqual([]);
    expect(await hostState()).toEqual(before);
    expect(iterations).toBeGreaterThan(0);
  });
});

describe("FIFOs planted while a person browses", () => {
  const fifos: string[] = [];
  afterEach(() => {
    // A reader that got stuck in open() is let go, so a failing run does not hang the worker.
    for (const fifo of fifos.splice(0)) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
    }
  });

  it("keeps every request quick, reports FIFOs as not files and the watcher skips them", async () => {
    await writeFile(path.join(ws.root, "normal.txt"), "hello\n");
    const controller = new AbortController();
    const seen: FileChange[] = [];
    let ready!: () => void;
    const watching = new Promise<void>((resolve) => (ready = resolve));
    void (async () => {
      for await (const change of watchWorkspace(ws.root, { signal: controller.signal, onReady: ready }))
        seen.push(change);
    })();
    await watching;
    try {
      for (let i = 0; i < 6; i++) {
        const fifo = path.join(ws.root, `pipe-${i}`);
        fifos.push(fifo);
        execFileSync("mkfifo", [fifo]);
      }
      await expect
        .poll(() => seen.filter((change) => change.path.startsWith("pipe-")).length, { timeout: 5000 })
        .toBe(6);
      const quick = <T>(work: Promise<T>): Promise<T> =>
        Promise.race([
          work,
          new Promise<T>((_, reject) =>
            setTimeout(() => reject(new Error("the server did not answer within 2 s")), 2000),
          ),
        ]);
      for (let i = 0; i < 6; i++) {
        const error = await expectCode(quick(ws.read(`pipe-${i}`)), "NOT_A_FILE");
        expect(error.message).toBe(
          `'pipe-${i}' is a named pipe (FIFO), not a file; only regular files can be opened here. Use the terminal to work with it.`,
        );
        await expectCode(quick(ws.readBytes(`pipe-${i}`)), "NOT_A_FILE");
      }
      expect((await quick(ws.list())).map((entry) => entry.name)).toContain("pipe-5");
      expect(await quick(ws.read("normal.txt"))).toMatchObject({ kind: "text", content: "hello\n" });
      expect(
        seen.filter((change) => change.path.startsWith("pipe-")).every((change) => change.version === undefined),
      ).toBe(true);
    } finally {
      controller.abort();
    }
  });
});
