import { chmod, mkdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { canSwapLinks, startLinkSwapper, useTempDirs } from "@/server/test/temp-dirs";
import { canSwitchIdentity, prepareWorkspace } from "./identity";

const tempDir = useTempDirs();

describe.skipIf(!canSwitchIdentity())("handing a workspace to the project's group", () => {
  it("makes folders setgid and group-writable, files group-writable, and leaves what a link points to alone", async () => {
    const root = await tempDir();
    const host = await tempDir();
    await writeFile(path.join(host, "secret"), "host", { mode: 0o600 });
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src/run.sh"), "echo", { mode: 0o700 });
    await symlink(path.join(host, "secret"), path.join(root, "link"));
    prepareWorkspace(root, { uid: 1_234_567, gid: 1_234_567 });

    const folder = await stat(path.join(root, "src"));
    expect(folder.gid).toBe(1_234_567);
    expect(folder.mode & 0o2070).toBe(0o2070);
    const script = await stat(path.join(root, "src/run.sh"));
    expect([script.gid, script.mode & 0o777]).toEqual([1_234_567, 0o770]);
    const secret = await stat(path.join(host, "secret"));
    expect([secret.gid, secret.mode & 0o777]).toEqual([0, 0o600]);
  });

  // Issue 38: the walk as root met a folder the project can swap for a link to a host folder at any
  // moment; lstat then chmod on the path string changed the host file's mode and group.
  it.skipIf(!canSwapLinks)("never changes a host file while a folder is swapped for a link to its folder", async () => {
    const root = await tempDir();
    const host = await tempDir();
    await chmod(host, 0o700);
    await writeFile(path.join(host, "secret"), "host", { mode: 0o600 });
    await mkdir(path.join(root, "d"));
    await writeFile(path.join(root, "d/secret"), "workspace", { mode: 0o600 });
    await symlink(host, path.join(root, "swap"));
    const swapper = await startLinkSwapper(path.join(root, "d"), path.join(root, "swap"));
    try {
      // Each identity is new to this workspace, so each call walks the whole tree again.
      for (let i = 0; i < 300; i++) prepareWorkspace(root, { uid: 1_300_000 + i, gid: 1_300_000 + i });
    } finally {
      await swapper.stop();
    }
    const secret = await stat(path.join(host, "secret"));
    expect([secret.gid, secret.mode & 0o777]).toEqual([0, 0o600]);
    expect((await stat(host)).mode & 0o777).toBe(0o700);
  });
});
