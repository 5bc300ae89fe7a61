import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { swapWithLink } from "@/server/test/swap-with-link";
import { createTestServices } from "@/server/test/services";
import { canSwapLinks } from "@/server/test/temp-dirs";

// Issue 38, defect 2, at project deletion: the server removes the workspace as root, and a process
// the project left running (detached from its terminal) swaps a folder of it with a link to a
// root-only host folder in a loop (renameat2 RENAME_EXCHANGE). A removal that walks the folder by
// path follows the link and deletes the host files; nothing outside may be touched. Bounded:
// PROJECTS deletions.

const PROJECTS = 25;
const FILES = 300;

let env: Awaited<ReturnType<typeof createTestServices>>;
const callerOf = createCallerFactory(appRouter);
let caller: ReturnType<typeof callerOf>;
let outside: string;

beforeAll(async () => {
  env = await createTestServices();
  caller = callerOf(env.context(await env.createUser("admin")));
  outside = await mkdtemp(path.join(os.tmpdir(), "tandem-root-only-"));
  await chmod(outside, 0o700);
  for (let i = 0; i < FILES; i++) await writeFile(path.join(outside, `f${i}.txt`), "host file");
}, 60_000);

afterAll(async () => {
  await env?.dispose();
  await rm(outside, { recursive: true, force: true });
});

describe.runIf(canSwapLinks)("deleting a project while a folder of it is swapped for a link in a loop", () => {
  it("removes the workspace and nothing outside it", async () => {
    for (let n = 0; n < PROJECTS; n++) {
      const { id } = await caller.project.create({ name: `Doomed ${n}` });
      const root = env.services.files.pathOf(id);
      await mkdir(path.join(root, "d"), { recursive: true });
      for (let i = 0; i < FILES; i++) await writeFile(path.join(root, "d", `f${i}.txt`), "project file");
      const swapper = await swapWithLink(root, "d", outside);
      // While the folder keeps changing under it the removal may fail; it must not go outside either way.
      await caller.project.delete({ projectId: id }).catch(() => undefined);
      await swapper.stop().catch(() => 0); // the workspace, and the link with it, may be gone
      expect((await readdir(outside)).length, `after deletion ${n}`).toBe(FILES);
    }
  }, 120_000);
});
