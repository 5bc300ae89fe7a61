import { randomBytes } from "node:crypto";
import path from "node:path";
import { atomicWriteAt } from "./atomic-write";
import { closeQuietly, openParent, readDirBeneath, resolveEntry, withFd } from "./beneath";
import { notAFile, readRegular, readRegularAt } from "./beneath-files";
import { mkdirBeneath, renameAt, unlinkAt, writeNewFileAt } from "./beneath-entries";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { MAX_FILE_BYTES, versionOf } from "./file-limits";
import type { Workspace } from "./workspace";
import { ensureRoom, spent } from "./write-budget";

export interface FileWrite {
  /** Workspace path, as for `Workspace.write`. */
  path: string;
  /** The new content; null deletes the file (which must then be at `expectedVersion`). */
  bytes: Buffer | null;
  /** The version the change was computed from; null: the file must not exist yet. */
  expectedVersion: string | null;
}

/** Points where a test can stop the commit, as a crash would. */
export type CommitStep = "prepared" | "committed" | `renamed:${number}`;

export interface CommitOptions {
  onStep?(step: CommitStep): void | Promise<void>;
}

interface Journal {
  state: "prepare" | "commit";
  /** Root-relative POSIX paths, so a moved workspace can still be recovered; `remove`: deleted at the commit. */
  files: { target: string; temp: string; remove?: true }[];
}

const JOURNAL_DIR = ".tandem/transactions";
/** A journal lists paths, never contents: far below this. */
const MAX_JOURNAL_BYTES = 4 * 1024 * 1024;

/**
 * Writes several files as one change: every version is checked first (CONFLICT if any file moved
 * on), new contents go to temp files beside their targets, a journal marked "commit" is the commit
 * point, then the temps are renamed over the targets and the files to delete are removed. After a crash, `recoverTransactions` rolls a
 * committed journal forward and removes the temps of an uncommitted one: all old or all new.
 * Every path is opened beneath the root (beneath.ts), journals included: they name root-relative
 * paths, and a recovery never follows a link out of the workspace.
 */
export function commitFiles(
  workspace: Workspace,
  writes: readonly FileWrite[],
  options: CommitOptions = {},
): Promise<{ versions: string[] }> {
  return workspace.exclusive(async () => {
    await recoverTransactions(workspace);
    const targets = await Promise.all(writes.map((write) => checkTarget(workspace, write)));
    const growth = writes.reduce((sum, write, i) => sum + (write.bytes?.length ?? 0) - targets[i]!.size, 0);
    await ensureRoom(
      workspace,
      growth,
      writes.length === 1 ? `'${writes[0]!.path}'` : `These changes to ${writes.length} files`,
    );
    const id = randomBytes(6).toString("hex");
    await mkdirBeneath(workspace.root, JOURNAL_DIR).catch((error: unknown) =>
      Promise.reject(fromFsError(error, JOURNAL_DIR)),
    );
    const journalPath = `${JOURNAL_DIR}/${id}.json`;
    const files = targets.map(({ real }, i) => ({
      target: real,
      temp: path.posix.join(path.posix.dirname(real), `.tandem-${path.posix.basename(real)}.${id}.tmp`),
      ...(writes[i]!.bytes === null ? { remove: true as const } : {}),
    }));
    const journal: Journal = { state: "prepare", files };
    let committed = false;
    try {
      await writeJournal(workspace.root, journalPath, journal);
      for (const [i, write] of writes.entries()) {
        if (write.bytes === null) continue;
        const bytes = write.bytes;
        const parent = path.posix.dirname(files[i]!.target);
        await mkdirBeneath(workspace.root, parent === "." ? "" : parent);
        await atParent(workspace.root, files[i]!.temp, (dirFd, name) =>
          writeNewFileAt(dirFd, name, bytes, targets[i]!.mode),
        );
      }
      await options.onStep?.("prepared");
      await writeJournal(workspace.root, journalPath, { ...journal, state: "commit" });
      committed = true;
      await options.onStep?.("committed");
      for (const [i, file] of files.entries()) {
        if (file.remove) await atParent(workspace.root, file.target, unlinkAt);
        else await renameBeneath(workspace.root, file.temp, file.target);
        await options.onStep?.(`renamed:${i}`);
      }
      await atParent(workspace.root, journalPath, unlinkAt);
    } catch (error) {
      // Past the commit point the change stands: finish it. Before it, undo the temps.
      const recovered = await recoverJournal(workspace.root, journalPath).then(
        () => true,
        () => false,
      );
      if (!(committed && recovered)) throw fromFsError(error, writes[0]?.path ?? "");
    }
    spent(workspace, growth);
    return { versions: writes.map((write) => (write.bytes ? versionOf(write.bytes) : "")) };
  });
}

/** Runs `task` on the entry `rel` through its parent folder opened beneath the root. */
async function atParent<T>(root: string, rel: string, task: (dirFd: number, name: string) => Promise<T>): Promise<T> {
  const { dirFd, name } = openParent(root, rel);
  return withFd(dirFd, () => task(dirFd, name));
}

function writeJournal(root: string, journalPath: string, journal: Journal): Promise<void> {
  return atParent(root, journalPath, (dirFd, name) => atomicWriteAt(dirFd, name, Buffer.from(JSON.stringify(journal))));
}

async function renameBeneath(root: string, from: string, to: string): Promise<void> {
  await atParent(root, from, (fromDir, fromName) =>
    atParent(root, to, (toDir, toName) => renameAt(fromDir, fromName, toDir, toName)),
  );
}

/** The real root-relative path a write to `write.path` lands on (links inside followed), after checking its version. */
async function checkTarget(
  workspace: Workspace,
  write: FileWrite,
): Promise<{ real: string; mode: number | undefined; size: number }> {
  const r = await workspace.resolve(write.path);
  if (r.requested === "") throw new WorkspaceError("IS_DIRECTORY", "The workspace root is a folder, not a file.");
  if (write.bytes && write.bytes.length > MAX_FILE_BYTES)
    throw new WorkspaceError("TOO_LARGE", `'${r.requested}' would be over the size limit.`);
  const entry = await resolveEntry(workspace.root, r.requested).catch((error: unknown) =>
    errnoCode(error) === "ENOENT" ? null : Promise.reject(fromFsError(error, r.requested)),
  );
  let current: string | null = null;
  let size = 0;
  try {
    const info = entry?.info ?? null;
    if (info?.isDirectory()) throw new WorkspaceError("IS_DIRECTORY", `'${r.requested}' is a folder, not a file.`);
    if (info && !info.isFile()) throw notAFile(`'${r.requested}'`, info);
    if (entry && info) {
      const { bytes } = await readRegularAt(entry.dirFd, entry.name, `'${r.requested}'`, MAX_FILE_BYTES).catch(
        (error: unknown) => Promise.reject(fromFsError(error, r.requested)),
      );
      if (bytes === null) throw new WorkspaceError("TOO_LARGE", `'${r.requested}' is over the size limit.`);
      current = versionOf(bytes);
      size = bytes.length;
    }
    if (current !== write.expectedVersion) {
      throw new WorkspaceError(
        "CONFLICT",
        current === null
          ? `'${r.requested}' was deleted since it was read. Read it again before changing it.`
          : `'${r.requested}' changed on disk since it was read (someone else saved it). Read it again and redo the change.`,
        { currentVersion: current },
      );
    }
    return { real: entry?.real ?? r.path, mode: info ? info.mode & 0o7777 : undefined, size };
  } finally {
    if (entry) closeQuietly(entry.dirFd);
  }
}

/** Finishes or undoes transactions a crash interrupted. Safe to call at any time; cheap when idle. */
export async function recoverTransactions(workspace: Workspace): Promise<void> {
  const listed = await readDirBeneath(workspace.root, JOURNAL_DIR).catch(() => null);
  if (!listed) return;
  closeQuietly(listed.dirFd);
  for (const name of listed.names) {
    if (name.endsWith(".json")) await recoverJournal(workspace.root, `${JOURNAL_DIR}/${name}`);
  }
}

async function recoverJournal(root: string, journalPath: string): Promise<void> {
  const read = await readRegular(root, journalPath, `'${journalPath}'`, MAX_JOURNAL_BYTES).catch(() => null);
  if (read === null) return;
  let journal: Journal | null = null;
  try {
    journal = JSON.parse(read.bytes?.toString("utf8") ?? "") as Journal;
  } catch {
    // A journal cut short was never the commit point (those are written atomically): nothing to undo.
  }
  for (const file of journal?.files ?? []) {
    if (journal?.state === "commit" && file.remove) {
      await atParent(root, file.target, unlinkAt).catch((error: unknown) => {
        if (errnoCode(error) !== "ENOENT") throw error;
      });
    } else if (journal?.state === "commit") {
      await renameBeneath(root, file.temp, file.target).catch((error: unknown) => {
        // Gone already (renamed before the crash), or a journal a member planted that names a
        // place outside the workspace (EXDEV): nothing to finish.
        if (errnoCode(error) !== "ENOENT" && errnoCode(error) !== "EXDEV") throw error;
      });
    } else {
      await atParent(root, file.temp, unlinkAt).catch(() => undefined);
    }
  }
  await atParent(root, journalPath, unlinkAt);
}
