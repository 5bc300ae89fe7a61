import { openSync, closeSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultSandboxHost } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { swapWithLink } from "@/server/test/swap-with-link";
import type { CheckpointStore } from "@/server/workspace";
import { canSwapLinks } from "@/server/test/temp-dirs";

// Issue 38, defect 2, in the checkpoint store: a snapshot is `git add --all` over the workspace,
// and git reads each file by path. A process of the project swapping a folder with a link to a
// root-only host folder (renameat2 RENAME_EXCHANGE, in a loop) made git, run by the server as
// root on the host, read the host file into a checkpoint (after 6 snapshots), from where a restore
// or the Changes view hands it to the project. With the server's sandbox (production's host: a
// user per project when root), git reads the work tree inside the sandbox, where the link leads
// nowhere. Bounded: ROUNDS snapshots.

const ROUNDS = 150;
const SECRET = "host secret 5be0";

let dataDir: string;
let outside: string;
let root: string;
let store: CheckpointStore;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "tandem-checkpoint-race-"));
  const sandbox = createSandbox({ host: defaultSandboxHost("bwrap", { dataDir, limits: null }) });
  const files = createProjectFiles(dataDir, []);
  store = await createCheckpointStores(dataDir, files, sandbox).open("race-project");
  root = files.pathOf("race-project");
  outside = await mkdtemp(path.join(os.tmpdir(), "tandem-root-only-"));
  await chmod(outside, 0o700);
  await writeFile(path.join(outside, "f.txt"), SECRET);
}, 60_000);

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describeSandboxed("checkpoints of a workspace whose folder is swapped for a link in a loop", () => {
  it("snapshots, diffs and restores with git in the project's sandbox", async () => {
    await writeFile(path.join(root, "a.txt"), "one\n");
    const first = await store.snapshot({ label: "one" });
    await writeFile(path.join(root, "a.txt"), "two\n");
    await writeFile(path.join(root, "b.txt"), "new\n");
    expect((await store.diff(first.id, "workspace")).map((c) => [c.path, c.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "added"],
    ]);
    await store.restore(first.id);
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("one\n");
    expect(await stat(path.join(root, "b.txt")).catch(() => null)).toBeNull();
  });

  it.runIf(canSwapLinks)(
    "never records a file outside the workspace",
    async () => {
      await mkdir(path.join(root, "d"));
      // The test changes the real folder through a descriptor, wherever the swapper has put it.
      const folder = openSync(path.join(root, "d"), "r");
      const swapper = await swapWithLink(root, "d", outside);
      const leaked: number[] = [];
      let taken = 0;
      try {
        for (let i = 0; i < ROUNDS; i++) {
          await writeFile(`/proc/self/fd/${folder}/f.txt`, `inside ${i}`);
          // git may find the file gone between listing and reading it (the link leads nowhere in the
          // sandbox): that snapshot fails, which costs the attacker their own checkpoint only.
          const snapshot = await store.snapshot({ label: `round ${i}` }).catch(() => null);
          if (!snapshot) continue;
          taken++;
          if ((await store.fileAt(snapshot.id, "d/f.txt"))?.toString().includes(SECRET)) leaked.push(i);
        }
      } finally {
        await swapper.stop();
        closeSync(folder);
      }
      expect(leaked, `recorded the host file at snapshot ${leaked[0]}`).toEqual([]);
      expect(taken).toBeGreaterThan(ROUNDS / 4);
    },
    120_000,
  );
});
