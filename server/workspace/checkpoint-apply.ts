import { randomBytes } from "node:crypto";
import { lstat, mkdir, rename, rmdir, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { atomicWrite } from "./atomic-write";
import { errnoCode } from "./errors";
import { resolveInside } from "./paths";
import { EXECUTABLE_MODE, SYMLINK_MODE } from "./checkpoint-tree";

/**
 * Writes a file as a checkpoint holds it (regular, executable or symlink), atomically, never outside
 * `root`. A null `gitMode` keeps the mode of the file already there.
 */
export async function writeCheckpointFile(root: string, relPath: string, bytes: Buffer, gitMode: string | null): Promise<void> {
  const { entry } = await resolveInside(root, [], relPath);
  if (entry === root) throw new Error("the workspace root is not a file");
  const existing = await lstat(entry).catch(() => null);
  // An empty folder where a file belongs can go; one with content (ignored files, say) stays and the write fails.
  if (existing?.isDirectory()) await rmdir(entry);
  await mkdir(path.dirname(entry), { recursive: true });
  if (gitMode === SYMLINK_MODE) {
    const temp = path.join(path.dirname(entry), `.tandem-${path.basename(entry)}.${randomBytes(6).toString("hex")}.tmp`);
    await symlink(bytes.toString("utf8"), temp);
    await rename(temp, entry).catch(async (error: unknown) => {
      await unlink(temp).catch(() => undefined);
      throw error;
    });
    return;
  }
  const current = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  await atomicWrite(entry, bytes, { mode: gitMode === null ? current : fileMode(current, gitMode === EXECUTABLE_MODE) });
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
 * Removes a file or symlink (never a folder), then the folders the removal left empty. Returns
 * false when there was nothing to remove.
 */
export async function deleteCheckpointFile(root: string, relPath: string): Promise<boolean> {
  const { entry } = await resolveInside(root, [], relPath);
  const existing = await lstat(entry).catch(() => null);
  if (!existing || existing.isDirectory() || entry === root) return false;
  await unlink(entry);
  for (let dir = path.dirname(entry); dir !== root && dir.startsWith(root); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") continue;
      break; // not empty: something else (an ignored file, say) still lives there
    }
  }
  return true;
}

/** Runs `task` over `items` with at most `limit` running at once; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
