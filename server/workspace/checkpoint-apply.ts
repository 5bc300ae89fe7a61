import { randomBytes } from "node:crypto";
import { rmdir, symlink } from "node:fs/promises";
import path from "node:path";
import { mapLimit } from "@/lib/map-limit";
import { atomicWriteAt } from "./atomic-write";
import { fdPath, lstatAtIfExists, openParent, withFd } from "./beneath";
import { mkdirBeneath, renameAt, unlinkAt } from "./beneath-entries";
import { errnoCode } from "./errors";
import { EXECUTABLE_MODE, SYMLINK_MODE, type StatChange } from "./checkpoint-tree";
import { type CheckpointGit, tooLarge } from "./checkpoint-git";
import type { Workspace } from "./workspace";
import { ensureRoom, spent } from "./write-budget";

// What a restore or a rejected change does to the workspace's files, beneath the root
// (beneath.ts): each file's folder is opened once, beneath the root, and the file is written,
// replaced or removed as an entry of that open folder, so a folder swapped for a link meanwhile
// cannot send a write or a delete outside.

const parentOf = (rel: string) => (path.posix.dirname(rel) === "." ? "" : path.posix.dirname(rel));

/**
 * Writes a file as a checkpoint holds it (regular, executable or symlink), atomically, never outside
 * the workspace, and within its disk budget. A null `gitMode` keeps the mode of the file already there.
 */
export async function writeCheckpointFile(
  workspace: Workspace,
  relPath: string,
  bytes: Buffer,
  gitMode: string | null,
): Promise<void> {
  if (relPath === "") throw new Error("the workspace root is not a file");
  await mkdirBeneath(workspace.root, parentOf(relPath));
  const { dirFd, name } = openParent(workspace.root, relPath);
  await withFd(dirFd, async () => {
    const existing = await lstatAtIfExists(dirFd, name);
    const growth = bytes.length - (existing?.isFile() ? existing.size : 0);
    await ensureRoom(workspace, growth, `'${relPath}'`);
    // An empty folder where a file belongs can go; one with content (ignored files, say) stays and the write fails.
    if (existing?.isDirectory()) await rmdir(fdPath(dirFd, name));
    if (gitMode === SYMLINK_MODE) {
      const temp = `.tandem-${name}.${randomBytes(6).toString("hex")}.tmp`;
      await symlink(bytes.toString("utf8"), fdPath(dirFd, temp));
      await renameAt(dirFd, temp, dirFd, name).catch(async (error: unknown) => {
        await unlinkAt(dirFd, temp).catch(() => undefined);
        throw error;
      });
    } else {
      const current = existing?.isFile() ? existing.mode & 0o7777 : undefined;
      await atomicWriteAt(dirFd, name, bytes, {
        mode: gitMode === null ? current : fileMode(current, gitMode === EXECUTABLE_MODE),
      });
    }
    spent(workspace, growth);
  });
}

function currentUmask(): number {
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
}

/** git records only the executable bit: keep the rest of an existing file's mode. */
function fileMode(current: number | undefined, executable: boolean): number | undefined {
  // A new executable gets what the umask allows: group-writable when the server shares
  // workspaces with the sandbox's group (umask 002, server/sandbox/identity.ts).
  if (current === undefined) return executable ? 0o777 & ~currentUmask() : undefined;
  return executable ? current | ((current & 0o444) >> 2) : current & ~0o111;
}

/**
 * Removes a file or symlink (never a folder), then the folders the removal left empty, each
 * opened beneath the root again. Returns false when there was nothing to remove.
 */
export async function deleteCheckpointFile(workspace: Workspace, relPath: string): Promise<boolean> {
  if (relPath === "") return false;
  let parent;
  try {
    parent = openParent(workspace.root, relPath);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return false;
    throw error;
  }
  const removed = await withFd(parent.dirFd, async () => {
    const existing = await lstatAtIfExists(parent.dirFd, parent.name);
    if (!existing || existing.isDirectory()) return false;
    await unlinkAt(parent.dirFd, parent.name);
    return true;
  });
  if (!removed) return false;
  for (let dir = parentOf(relPath); dir !== ""; dir = parentOf(dir)) {
    try {
      const { dirFd, name } = openParent(workspace.root, dir);
      await withFd(dirFd, () => rmdir(fdPath(dirFd, name)));
    } catch (error) {
      if (errnoCode(error) === "ENOENT") continue;
      break; // not empty: something else (an ignored file, say) still lives there
    }
  }
  return true;
}

/** How many files of a restore are written at once. */
const WRITE_CONCURRENCY = 16;
/** How many bytes of files a restore reads back from the store before it writes them. */
const RESTORE_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Brings the workspace's files to a restore's `plan`, within the disk budget (or not at all); returns
 * the files it could not change, each with why. Deletions go first, so a file can take the place of
 * a folder it replaced (and the reverse). The files written are read back from the store and
 * written a batch at a time, so that the server holds at most `batchBytes` of them (or one file of
 * up to the store's maxObjectBytes); a larger file is left as it is, and said so.
 */
export async function applyPlan(
  git: CheckpointGit,
  workspace: Workspace,
  plan: readonly StatChange[],
  batchBytes = RESTORE_BATCH_BYTES,
): Promise<{ path: string; message: string }[]> {
  const failed: { path: string; message: string }[] = [];
  const attempt = (filePath: string, task: () => Promise<unknown>) =>
    task().catch((error: unknown) => failed.push({ path: filePath, message: (error as Error).message }));
  const writes = plan.filter((change) => change.status !== "deleted");
  const [sizes, replaced] = await Promise.all([
    git.sizes(writes.map((change) => change.newSha)),
    git.sizes(plan.filter((change) => change.status !== "added").map((change) => change.oldSha)),
  ]);
  // A restore that does not fit in the disk budget changes nothing; one that frees space always runs.
  const sum = (values: (number | null)[]) => values.reduce<number>((total, size) => total + (size ?? 0), 0);
  await ensureRoom(workspace, sum(sizes) - sum(replaced), `Restoring this checkpoint (${plan.length} files)`);
  await mapLimit(
    plan.filter((change) => change.status === "deleted"),
    WRITE_CONCURRENCY,
    (change) => attempt(change.path, () => deleteCheckpointFile(workspace, change.path)),
  );
  let batch: { change: StatChange; size: number }[] = [];
  let bytes = 0;
  const flush = async () => {
    const taken = batch;
    batch = [];
    bytes = 0;
    const contents = await git
      .readObjects(
        taken.map(({ change }) => change.newSha),
        { sizes: taken.map(({ size }) => size) },
      )
      .catch((error: unknown) => {
        for (const { change } of taken) failed.push({ path: change.path, message: (error as Error).message });
        return null;
      });
    if (!contents) return;
    await mapLimit(taken, WRITE_CONCURRENCY, ({ change }, i) =>
      attempt(change.path, () => writeCheckpointFile(workspace, change.path, contents[i]!, change.newMode)),
    );
  };
  for (const [i, change] of writes.entries()) {
    const size = sizes[i] ?? 0;
    if (size > git.maxObjectBytes) {
      failed.push({ path: change.path, message: tooLarge(change.path, size, git.maxObjectBytes).message });
      continue;
    }
    if (batch.length > 0 && bytes + size > batchBytes) await flush();
    batch.push({ change, size });
    bytes += size;
  }
  if (batch.length > 0) await flush();
  return failed;
}
