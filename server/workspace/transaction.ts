import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, readdir, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { atomicWrite } from "./atomic-write";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { toPosix } from "./paths";
import { MAX_FILE_BYTES, versionOf, type Workspace } from "./workspace";

export interface FileWrite {
  /** Workspace path, as for `Workspace.write`. */
  path: string;
  bytes: Buffer;
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
  /** Root-relative POSIX paths, so a moved workspace can still be recovered. */
  files: { target: string; temp: string }[];
}

const JOURNAL_DIR = ".tandem/transactions";

/**
 * Writes several files as one change: every version is checked first (CONFLICT if any file moved
 * on), new contents go to temp files beside their targets, a journal marked "commit" is the commit
 * point, then the temps are renamed over the targets. After a crash, `recoverTransactions` rolls a
 * committed journal forward and removes the temps of an uncommitted one: all old or all new.
 */
export function commitFiles(workspace: Workspace, writes: readonly FileWrite[], options: CommitOptions = {}): Promise<{ versions: string[] }> {
  return workspace.exclusive(async () => {
    await recoverTransactions(workspace);
    const targets = await Promise.all(writes.map((write) => checkTarget(workspace, write)));
    const id = randomBytes(6).toString("hex");
    const journalDir = path.join(workspace.root, JOURNAL_DIR);
    await mkdir(journalDir, { recursive: true });
    const journalPath = path.join(journalDir, `${id}.json`);
    const files = targets.map(({ absolute }) => ({
      target: toPosix(path.relative(workspace.root, absolute)),
      temp: toPosix(path.relative(workspace.root, path.join(path.dirname(absolute), `.tandem-${path.basename(absolute)}.${id}.tmp`))),
    }));
    const journal: Journal = { state: "prepare", files };
    let committed = false;
    try {
      await atomicWrite(journalPath, Buffer.from(JSON.stringify(journal)));
      for (const [i, write] of writes.entries()) {
        await mkdir(path.dirname(targets[i]!.absolute), { recursive: true });
        await writeDurably(path.join(workspace.root, files[i]!.temp), write.bytes, targets[i]!.mode);
      }
      await options.onStep?.("prepared");
      await atomicWrite(journalPath, Buffer.from(JSON.stringify({ ...journal, state: "commit" } satisfies Journal)));
      committed = true;
      await options.onStep?.("committed");
      for (const [i, file] of files.entries()) {
        await rename(path.join(workspace.root, file.temp), path.join(workspace.root, file.target));
        await options.onStep?.(`renamed:${i}`);
      }
      await unlink(journalPath);
    } catch (error) {
      // Past the commit point the change stands: finish it. Before it, undo the temps.
      const recovered = await recoverJournal(workspace.root, journalPath).then(() => true, () => false);
      if (!(committed && recovered)) throw fromFsError(error, writes[0]?.path ?? "");
    }
    return { versions: writes.map((write) => versionOf(write.bytes)) };
  });
}

async function checkTarget(workspace: Workspace, write: FileWrite): Promise<{ absolute: string; mode: number | undefined }> {
  const r = await workspace.resolve(write.path);
  if (r.entry === workspace.root) throw new WorkspaceError("IS_DIRECTORY", "The workspace root is a folder, not a file.");
  if (write.bytes.length > MAX_FILE_BYTES) throw new WorkspaceError("TOO_LARGE", `'${r.requested}' would be over the size limit.`);
  const info = await stat(r.absolute).catch((error: unknown) => (errnoCode(error) === "ENOENT" ? null : Promise.reject(fromFsError(error, r.requested))));
  if (info?.isDirectory()) throw new WorkspaceError("IS_DIRECTORY", `'${r.requested}' is a folder, not a file.`);
  const current = info ? versionOf(await readFile(r.absolute)) : null;
  if (current !== write.expectedVersion) {
    throw new WorkspaceError(
      "CONFLICT",
      current === null
        ? `'${r.requested}' was deleted since it was read. Read it again before changing it.`
        : `'${r.requested}' changed on disk since it was read (someone else saved it). Read it again and redo the change.`,
      { currentVersion: current },
    );
  }
  return { absolute: r.absolute, mode: info ? info.mode & 0o7777 : undefined };
}

async function writeDurably(file: string, bytes: Buffer, mode: number | undefined): Promise<void> {
  const handle = await open(file, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(bytes);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Finishes or undoes transactions a crash interrupted. Safe to call at any time; cheap when idle. */
export async function recoverTransactions(workspace: Workspace): Promise<void> {
  const dir = path.join(workspace.root, JOURNAL_DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name.endsWith(".json")) await recoverJournal(workspace.root, path.join(dir, name));
  }
}

async function recoverJournal(root: string, journalPath: string): Promise<void> {
  const text = await readFile(journalPath, "utf8").catch(() => null);
  if (text === null) return;
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
  } catch {
    // A journal cut short was never the commit point (those are written atomically): nothing to undo.
    await unlink(journalPath);
    return;
  }
  for (const file of journal.files) {
    const temp = path.join(root, file.temp);
    if (journal.state === "commit") {
      await rename(temp, path.join(root, file.target)).catch((error: unknown) => {
        if (errnoCode(error) !== "ENOENT") throw error;
      });
    } else {
      await unlink(temp).catch(() => undefined);
    }
  }
  await unlink(journalPath);
}
