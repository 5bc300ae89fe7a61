import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { defaultSandboxHost } from "@/server/sandbox/launcher";
import { canSwitchIdentity, projectIdentity } from "@/server/sandbox/identity";
import { createSandbox } from "@/server/sandbox/sandbox";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { describeSandboxed } from "@/server/test/sandbox-guard";

// A checkpoint store holds every file of its project's tree at every turn: another project's
// processes (another uid on the same host) must read none of it, nor its history.

const SECRET = "checkpointed secret 41c7";
const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** What another project's uid gets from `git show <id>:secret.txt` on the store, and from listing it. */
function asOtherProject(dataDir: string, storeDir: string, id: string): string {
  const other = projectIdentity(path.join(dataDir, "projects", "another-project"));
  const run = (command: string, args: string[]) =>
    spawnSync(command, args, {
      uid: other.uid,
      gid: other.gid,
      env: { PATH: "/usr/bin:/bin", HOME: "/tmp" } as Record<string, string> as NodeJS.ProcessEnv,
    });
  const show = run("git", ["-c", "safe.directory=*", "--git-dir", storeDir, "show", `${id}:secret.txt`]);
  const list = run("ls", ["-R", storeDir]);
  return `${show.stdout}${show.stderr}${list.stdout}`;
}

async function setup() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "tandem-checkpoint-modes-"));
  made.push(dataDir);
  const sandbox = createSandbox({ host: defaultSandboxHost("bwrap", { dataDir, limits: null }) });
  const files = createProjectFiles(dataDir, []);
  const stores = createCheckpointStores(dataDir, files, sandbox);
  const store = await stores.open("modes-project");
  const root = files.pathOf("modes-project");
  await writeFile(path.join(root, "secret.txt"), `${SECRET}\n`);
  const snapshot = await store.snapshot({ label: "one" });
  return { dataDir, storeDir: path.join(dataDir, "checkpoints", "modes-project"), id: snapshot.id };
}

describeSandboxed("a project's checkpoint store read by another project's uid", () => {
  it.runIf(canSwitchIdentity())("gives it nothing", async () => {
    const { dataDir, storeDir, id } = await setup();
    const seen = asOtherProject(dataDir, storeDir, id);
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain("objects");
  });

  it.runIf(canSwitchIdentity())("gives it nothing from a store made open before, once it is used again", async () => {
    const { dataDir, storeDir, id } = await setup();
    // What a store made before looked like: git's folders under the server's umask.
    await chmod(storeDir, 0o775);
    // The next server start: its modules (and the stores they keep open) are new.
    vi.resetModules();
    const fresh = await import("@/server/services/checkpoints");
    const files = createProjectFiles(dataDir, []);
    const sandbox = createSandbox({ host: defaultSandboxHost("bwrap", { dataDir, limits: null }) });
    await fresh.createCheckpointStores(dataDir, files, sandbox).open("modes-project");
    const seen = asOtherProject(dataDir, storeDir, id);
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain("objects");
  });
});
