import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FILE, generation } from "@/server/test/workspace-writer";
import { openWorkspace } from "./index";
import { useTempDirs } from "@/server/test/temp-dirs";

// kill -9 a process in the middle of writing big files through the workspace, at random moments,
// again and again: the file is always one whole generation, never a mix or a truncation, and never
// older than the last write the process reported finished.

const tempDir = useTempDirs();
const repoRoot = path.resolve(import.meta.dirname, "../..");

/** Starts the writer, lets it write `writes` generations and part of the next, then kills it with SIGKILL. */
async function writeAndKill(root: string, first: number, writes: number, extraMs: number): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/test/workspace-writer.ts", root, String(first)], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let reported = first - 1;
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      for (const match of String(chunk).matchAll(/wrote (\d+)/g)) reported = Number(match[1]);
      if (reported >= first + writes - 1) resolve();
    });
    void exited.then(() => reject(new Error(`the writer stopped on its own:\n${errors}`)));
  });
  await new Promise((r) => setTimeout(r, extraMs));
  child.kill("SIGKILL");
  await exited;
  return reported;
}

describe("atomic writes under kill -9", () => {
  it("leaves the old file or the new one, never a torn one", async () => {
    const root = await tempDir();
    let next = 1;
    for (let round = 0; round < 8; round++) {
      const reported = await writeAndKill(root, next, 1 + (round % 2), Math.floor(Math.random() * 120));
      const text = await readFile(path.join(root, FILE), "utf8");
      const found = Number(/^begin (\d+)\n/.exec(text)?.[1]);
      // Whole: exactly what generation `found` is, byte for byte.
      expect(text.length).toBe(generation(found).length);
      expect(text === generation(found)).toBe(true);
      // Durable: what the writer reported is there, or the write in flight when it died.
      expect([reported, reported + 1]).toContain(found);
      next = found + 1;
    }
    // A kill mid-write may leave a temp file beside it; people listing the folder never see one.
    expect((await (await openWorkspace(root)).list()).map((e) => e.name)).toEqual([FILE]);
  }, 240_000);
});
