import { stat } from "node:fs/promises";
import path from "node:path";
import { CheckpointError } from "./checkpoint-errors";
import type { CheckpointGit } from "./checkpoint-git";
import { GITLINK_MODE, diffTrees, type TreeEntryChange } from "./checkpoint-tree";

const PLACEHOLDER = ".tandem-checkpoint-placeholder";
const MAX_NESTING = 8;
// What `git add` says about a nested repository that has no commit yet (it then adds nothing there).
const UNBORN_NESTED = /^error: '(.+)\/' does not have a commit checked out$/gm;

export interface Capture {
  tree: string;
  /** What differs from the tree the capture is compared with. */
  changes: TreeEntryChange[];
}

/**
 * Records the index once it is up to date: as a tree compared with an earlier one, or as a commit
 * compared with its parent. Called again (attempt > 0) after a fix-up changed the index.
 */
export type Recorder<T extends Capture> = (attempt: number) => Promise<T>;

/**
 * Brings the store's private index up to date with the workspace and records it: git's index makes
 * unchanged files cost one lstat. What changed shows what needs fixing up before the record counts:
 * - a nested repository (a folder with its own .git) would be recorded as a gitlink, i.e. as a
 *   commit id whose files are not in the store. It is replaced by a placeholder entry so that the
 *   next `git add` walks into the folder as a plain one, with every .gitignore above it applying;
 * - when a .gitignore changed, files it now ignores leave the index (git keeps tracked files
 *   tracked otherwise).
 */
export async function captureWorkspace<T extends Capture>(git: CheckpointGit, record: Recorder<T>): Promise<T> {
  let nested = await addAll(git);
  let attempt = 0;
  let captured = await record(attempt++);
  for (;;) {
    const gitlinks = captured.changes.filter((change) => change.newMode === GITLINK_MODE).map((change) => change.path);
    const repos = [...new Set([...gitlinks, ...nested])];
    if (repos.length === 0) break;
    if (attempt > MAX_NESTING) {
      throw new CheckpointError(
        "GIT_FAILED",
        `Repositories are nested too deeply under '${repos[0]}' to snapshot. Move or ignore (.gitignore) the inner ones.`,
      );
    }
    await unfold(git, gitlinks, repos);
    nested = await addAll(git);
    captured = await record(attempt++);
  }
  if (
    captured.changes.some((change) => path.posix.basename(change.path) === ".gitignore") &&
    (await dropIgnored(git))
  ) {
    captured = await record(attempt++);
  }
  return captured;
}

/** Records the index as a tree, compared with `since`. */
export function treeRecorder(git: CheckpointGit, since: string): Recorder<Capture> {
  return async () => {
    const tree = await git.text(["write-tree"]);
    return { tree, changes: await diffTrees(git, since, tree, { renames: false }) };
  };
}

/** `git add -A`; returns the nested repositories without a commit, which git skipped. */
async function addAll(git: CheckpointGit): Promise<string[]> {
  // On the first snapshot (no index yet) a big-file threshold of 1 byte sends every file straight
  // into one pack (git's bulk check-in) instead of one loose object file each: 10,000 files become 2
  // files. Later snapshots add a few objects, which are cheaper loose than as a fsynced pack. Only
  // for `add`: elsewhere the threshold would make diffs call every file binary.
  const first = !(await stat(git.indexFile).catch(() => null));
  // --ignore-errors: one unreadable file must not cost the whole snapshot (it keeps its last version).
  const { stderr } = await git.run(
    [...(first ? ["-c", "core.bigFileThreshold=1"] : []), "add", "--all", "--ignore-errors"],
    { okCodes: [1], readsWorkTree: true },
  );
  return [...stderr.matchAll(UNBORN_NESTED)].map((match) => match[1]!);
}

async function unfold(git: CheckpointGit, gitlinks: readonly string[], repos: readonly string[]): Promise<void> {
  const empty = await git.text(["hash-object", "-w", "--no-filters", "--stdin"], { input: "" });
  const zero = "0".repeat(40);
  const lines = [
    ...gitlinks.map((repo) => `0 ${zero}\t${repo}`),
    ...repos.map((repo) => `100644 ${empty}\t${repo}/${PLACEHOLDER}`),
  ];
  await git.run(["update-index", "-z", "--index-info"], { input: lines.map((line) => `${line}\0`).join("") });
}

async function dropIgnored(git: CheckpointGit): Promise<boolean> {
  const { stdout } = await git.run(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], {
    readsWorkTree: true,
  });
  if (stdout.length === 0) return false;
  await git.run(["update-index", "-z", "--force-remove", "--stdin"], { input: stdout });
  return true;
}
