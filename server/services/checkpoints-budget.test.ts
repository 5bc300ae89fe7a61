import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiskBudget } from "@/server/sandbox/disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import type { CheckpointStore } from "@/server/workspace";

// Issue 38, 8: restoring a checkpoint and rejecting a file keep to the project's disk budget (here
// 1 MB, measured as in production), composed as the server composes them. A restore that does not
// fit changes nothing; one that frees space runs even past the budget, since that is a way back.

const KiB = 1024;
let dataDir: string;
let root: string;
let store: CheckpointStore;
const projectId = "budget-project";

const exists = (name: string) =>
  stat(path.join(root, name)).then(
    () => true,
    () => false,
  );
const settle = () => new Promise((resolve) => setTimeout(resolve, 120));

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "tandem-budget-"));
  const budget = createDiskBudget({ budgetMiB: 1, fileSizeMiB: 2048, intervalMs: 100, measure: diskUsageBytes });
  const files = createProjectFiles(dataDir, [], budget);
  store = await createCheckpointStores(dataDir, files).open(projectId);
  root = files.pathOf(projectId);
});

afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("checkpoint restore and review reject within the disk budget", () => {
  it("refuses a restore that does not fit, whole, and runs one that frees space past the budget", async () => {
    await writeFile(path.join(root, ".gitignore"), "scratch/\n");
    const before = await store.snapshot({ label: "empty" });
    await writeFile(path.join(root, "big.bin"), Buffer.alloc(700 * KiB, 1));
    await writeFile(path.join(root, "small.txt"), "small\n");
    const withBig = await store.snapshot({ label: "big" });
    await rm(path.join(root, "big.bin"));
    await rm(path.join(root, "small.txt"));
    // Ignored files stay through a restore, and count.
    await mkdir(path.join(root, "scratch"));
    await writeFile(path.join(root, "scratch/data.bin"), Buffer.alloc(600 * KiB, 2));
    await settle();

    await expect(store.restore(withBig.id)).rejects.toMatchObject({
      code: "DISK_FULL",
      message: expect.stringMatching(
        /^Restoring this checkpoint \(2 files\) does not fit in what is left of this project's disk budget of 1 MB \(0\.\d MB left\)\. Delete files or write less, then try again\.$/,
      ),
    });
    expect(await exists("big.bin")).toBe(false);
    expect(await exists("small.txt")).toBe(false);
    await expect(store.restoreFile(withBig.id, "big.bin")).rejects.toMatchObject({ code: "DISK_FULL" });
    expect(await exists("big.bin")).toBe(false);

    await rm(path.join(root, "scratch"), { recursive: true });
    await settle();
    expect((await store.restore(withBig.id)).failed).toEqual([]);
    expect((await stat(path.join(root, "big.bin"))).size).toBe(700 * KiB);

    // Past the budget (a command filled it): going back to before big.bin frees space, so it runs.
    await mkdir(path.join(root, "scratch"));
    await writeFile(path.join(root, "scratch/fill.bin"), Buffer.alloc(500 * KiB, 3));
    await settle();
    await expect(store.restoreFile(withBig.id, "small.txt")).resolves.toBeTruthy(); // same bytes: no growth
    expect((await store.restore(before.id)).failed).toEqual([]);
    expect(await exists("big.bin")).toBe(false);
  });
});
