import { execFileSync } from "node:child_process";
import { mkdir, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { atomicWriteAt } from "./atomic-write";
import { lstatAt, openParent, readDirBeneath, resolveEntry, statBeneath, withFd } from "./beneath";
import { readRegular } from "./beneath-files";
import { makeExecutableBeneath, mkdirBeneath, removeTreeAt } from "./beneath-entries";
import { canSwapLinks, expectCode, startLinkSwapper, useTempDirs } from "@/server/test/temp-dirs";
import { fromFsError } from "./errors";

const tempDir = useTempDirs();
let root: string;
let host: string;

/** The primitive's errors as Workspace shows them. */
function shown<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => Promise.reject(fromFsError(error, "x")));
}

beforeEach(async () => {
  root = await tempDir();
  host = await tempDir(); // stands for a root-only host folder
  await writeFile(path.join(host, "secret.txt"), "host secret");
  await mkdir(path.join(root, "src/lib"), { recursive: true });
  await writeFile(path.join(root, "src/lib/a.ts"), "export const a = 1;\n");
});

describe("openat2 beneath the root", () => {
  it("follows links that stay inside, as in a repository", async () => {
    await symlink("lib/a.ts", path.join(root, "src/alias.ts"));
    await symlink("src/lib", path.join(root, "libs"));
    expect((await readRegular(root, "src/alias.ts", "x", 1024)).bytes?.toString()).toBe("export const a = 1;\n");
    expect((await readRegular(root, "libs/a.ts", "x", 1024)).bytes?.toString()).toBe("export const a = 1;\n");
    expect((await statBeneath(root, "libs")).isDirectory()).toBe(true);
  });

  it("refuses links leading out, absolute links and '..' above the root with OUTSIDE_WORKSPACE", async () => {
    await symlink(host, path.join(root, "abs"));
    await symlink("../../..", path.join(root, "src/up"));
    await symlink(path.join(host, "secret.txt"), path.join(root, "secret-link"));
    await expectCode(shown(readRegular(root, "abs/secret.txt", "x", 1024)), "OUTSIDE_WORKSPACE");
    await expectCode(shown(readRegular(root, "secret-link", "x", 1024)), "OUTSIDE_WORKSPACE");
    await expectCode(shown(statBeneath(root, `src/up/${path.basename(host)}/secret.txt`)), "OUTSIDE_WORKSPACE");
    await expectCode(shown(readRegular(root, "../x", "x", 1024)), "OUTSIDE_WORKSPACE");
  });

  it("opens only regular files: a FIFO is refused at once with a clear error", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    const started = Date.now();
    const error = await expectCode(readRegular(root, "pipe", "'pipe'", 1024), "NOT_A_FILE");
    expect(error.message).toBe(
      "'pipe' is a named pipe (FIFO), not a file; only regular files can be opened here. Use the terminal to work with it.",
    );
    expect(Date.now() - started).toBeLessThan(1000);
    await expectCode(shown(readRegular(root, "src", "x", 1024)), "IS_DIRECTORY");
  });

  it("reads no more than the limit", async () => {
    await writeFile(path.join(root, "big"), "x".repeat(100));
    expect((await readRegular(root, "big", "x", 99)).bytes).toBeNull();
    expect((await readRegular(root, "big", "x", 100)).bytes?.length).toBe(100);
  });

  it("lists, creates, writes and removes through an open parent", async () => {
    await mkdirBeneath(root, "src/new/deep");
    const parent = openParent(root, "src/new/deep/file.txt");
    await withFd(parent.dirFd, async () => {
      await atomicWriteAt(parent.dirFd, parent.name, Buffer.from("hi"), { exclusive: true });
      await expect(
        atomicWriteAt(parent.dirFd, parent.name, Buffer.from("again"), { exclusive: true }),
      ).rejects.toMatchObject({ code: "EEXIST" });
      expect((await lstatAt(parent.dirFd, parent.name)).isFile()).toBe(true);
    });
    expect(await readFile(path.join(root, "src/new/deep/file.txt"), "utf8")).toBe("hi");
    const listed = await readDirBeneath(root, "src/new/deep");
    await withFd(listed.dirFd, async () => expect(listed.names).toEqual(["file.txt"]));
    const top = openParent(root, "src/new");
    await withFd(top.dirFd, () => removeTreeAt(top.dirFd, top.name));
    expect(await readdir(path.join(root, "src"))).toEqual(["lib"]);
  });

  it("removes a link to a host folder, never what it points to", async () => {
    await symlink(host, path.join(root, "src/lib/host"));
    const parent = openParent(root, "src/lib");
    await withFd(parent.dirFd, () => removeTreeAt(parent.dirFd, parent.name));
    expect(await readdir(host)).toEqual(["secret.txt"]);
  });

  it("resolves a write through links inside to the real entry, and refuses one leading out", async () => {
    await symlink("lib/a.ts", path.join(root, "src/alias.ts"));
    const entry = await resolveEntry(root, "src/alias.ts");
    await withFd(entry.dirFd, async () => expect(entry).toMatchObject({ name: "a.ts", real: "src/lib/a.ts" }));
    await symlink(path.join(host, "secret.txt"), path.join(root, "out"));
    await expectCode(shown(resolveEntry(root, "out")), "OUTSIDE_WORKSPACE");
    await symlink("../../../../../../../../../../../tmp/x", path.join(root, "up"));
    await expectCode(shown(resolveEntry(root, "up")), "OUTSIDE_WORKSPACE");
  });
});

describe.skipIf(!canSwapLinks)("a link swapper racing the primitive", () => {
  it("never reads, writes, creates or deletes outside the root while a folder and a host link are exchanged", async () => {
    await mkdir(path.join(root, "d"));
    await writeFile(path.join(root, "d/secret.txt"), "workspace text");
    await writeFile(path.join(host, "victim"), "keep me", { mode: 0o644 });
    await writeFile(path.join(root, "d/victim"), "workspace victim", { mode: 0o644 });
    await symlink(host, path.join(root, "swap"));
    const swapper = await startLinkSwapper(path.join(root, "d"), path.join(root, "swap"));
    let escapes = 0;
    let refused = 0;
    const deadline = Date.now() + 10_000;
    try {
      for (let i = 0; i < 200 && Date.now() < deadline; i++) {
        const attempts = [
          readRegular(root, "d/secret.txt", "x", 1024).then(({ bytes }) => {
            if (bytes?.toString() === "host secret") escapes++;
          }),
          (async () => {
            const parent = openParent(root, `d/w${i}.txt`);
            await withFd(parent.dirFd, () => atomicWriteAt(parent.dirFd, parent.name, Buffer.from("w")));
          })(),
          (async () => {
            const parent = openParent(root, "d/victim");
            await withFd(parent.dirFd, () => removeTreeAt(parent.dirFd, parent.name));
          })(),
          mkdirBeneath(root, `d/m${i}`),
          makeExecutableBeneath(root, "d/victim"),
        ];
        for (const result of await Promise.allSettled(attempts)) if (result.status === "rejected") refused++;
      }
    } finally {
      const swaps = await swapper.stop();
      expect(swaps).toBeGreaterThan(0);
    }
    expect(escapes).toBe(0);
    expect(refused).toBeGreaterThan(0); // the swapper did hit the calls: they failed instead of escaping
    expect((await readdir(host)).sort()).toEqual(["secret.txt", "victim"]);
    expect(await readFile(path.join(host, "victim"), "utf8")).toBe("keep me");
    expect((await stat(path.join(host, "victim"))).mode & 0o777).toBe(0o644);
  });

  it("makes executable only a regular file reached without a link: never a link's target, a FIFO or a folder", async () => {
    await writeFile(path.join(root, "run.sh"), "#!/bin/sh\n", { mode: 0o640 });
    expect(await makeExecutableBeneath(root, "run.sh")).toBe(true);
    expect((await stat(path.join(root, "run.sh"))).mode & 0o777).toBe(0o750);
    await writeFile(path.join(host, "tool.sh"), "#!/bin/sh\n", { mode: 0o644 });
    await symlink(path.join(host, "tool.sh"), path.join(root, "out.sh"));
    await symlink("run.sh", path.join(root, "in.sh"));
    await symlink(host, path.join(root, "hostdir"));
    execFileSync("mkfifo", [path.join(root, "pipe.sh")]);
    for (const name of ["out.sh", "in.sh", "hostdir/tool.sh", "pipe.sh", "src", "missing.sh"])
      expect(await makeExecutableBeneath(root, name), name).toBe(false);
    expect((await stat(path.join(host, "tool.sh"))).mode & 0o777).toBe(0o644);
  });
});
