import type { CheckpointGit } from "./checkpoint-git";

export type ChangeStatus = "added" | "modified" | "deleted" | "renamed";

/** One file that differs between two checkpoints (or a checkpoint and the workspace). */
export interface FileChange {
  path: string;
  status: ChangeStatus;
  /** git's rule: a NUL byte near the start of either side. */
  binary: boolean;
  /** For "renamed": where the file was in the older tree. */
  oldPath?: string;
}

/** One entry of `git diff-tree --raw`. */
export interface TreeEntryChange {
  status: ChangeStatus;
  path: string;
  oldPath?: string;
  /** "000000" when the file is absent on that side; 100644, 100755, 120000 (symlink), 160000 (gitlink). */
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

export const GITLINK_MODE = "160000";
export const SYMLINK_MODE = "120000";
export const EXECUTABLE_MODE = "100755";

/** What differs between two trees, as git sees it. Rename detection only when asked (it reads contents). */
export async function diffTrees(
  git: CheckpointGit,
  from: string,
  to: string,
  options: { renames: boolean },
): Promise<TreeEntryChange[]> {
  if (from === to) return [];
  const { stdout } = await git.run([
    "diff-tree",
    "-r",
    "-z",
    "--raw",
    options.renames ? "-M" : "--no-renames",
    from,
    to,
  ]);
  return parseRaw(stdout.toString("utf8").split("\0"));
}

export type StatChange = TreeEntryChange & { binary: boolean };

/** Like diffTrees, plus whether each file is binary (from --numstat, which reads contents). */
export async function diffTreesWithStats(
  git: CheckpointGit,
  from: string,
  to: string,
  options: { renames: boolean },
): Promise<StatChange[]> {
  if (from === to) return [];
  const { stdout } = await git.run([
    "diff-tree",
    "-r",
    "-z",
    options.renames ? "-M" : "--no-renames",
    "--raw",
    "--numstat",
    from,
    to,
  ]);
  const tokens = stdout.toString("utf8").split("\0");
  const entries = parseRaw(tokens);
  // git prints every --raw record first, then one --numstat record per file in the same order.
  let at = entries.consumed;
  return entries.map((entry) => {
    const stat = tokens[at] ?? "";
    at += entry.oldPath !== undefined ? 3 : 1;
    return { ...entry, binary: stat.startsWith("-\t-\t") };
  });
}

export function toFileChange({ path, status, binary, oldPath }: StatChange): FileChange {
  return oldPath === undefined ? { path, status, binary } : { path, status, binary, oldPath };
}

/** A commit's ids and what it changed from its first parent (everything, for a root commit). */
export async function describeCommit(
  git: CheckpointGit,
  rev: string,
): Promise<{ id: string; tree: string; parentId: string | null; changes: TreeEntryChange[] }> {
  const { stdout } = await git.run([
    "diff-tree",
    "-r",
    "-z",
    "--raw",
    "--no-renames",
    "--root",
    "--always",
    "--format=%H %T %P",
    rev,
  ]);
  const [header = "", ...rest] = stdout.toString("utf8").split("\0");
  const [id = "", tree = "", parentId] = header.trim().split(" ");
  if (rest[0]) rest[0] = rest[0].replace(/^\n/, "");
  return { id, tree, parentId: parentId || null, changes: parseRaw(rest) };
}

function parseRaw(tokens: string[]): TreeEntryChange[] & { consumed: number } {
  const entries: TreeEntryChange[] = [];
  let at = 0;
  while (at < tokens.length && tokens[at]!.startsWith(":")) {
    const [oldMode, newMode, oldSha, newSha, letter] = tokens[at]!.slice(1).split(" ") as [
      string,
      string,
      string,
      string,
      string,
    ];
    if (letter.startsWith("R") || letter.startsWith("C")) {
      entries.push({
        status: "renamed",
        oldPath: tokens[at + 1]!,
        path: tokens[at + 2]!,
        oldMode,
        newMode,
        oldSha,
        newSha,
      });
      at += 3;
    } else {
      const status = letter === "A" ? "added" : letter === "D" ? "deleted" : "modified";
      entries.push({ status, path: tokens[at + 1]!, oldMode, newMode, oldSha, newSha });
      at += 2;
    }
  }
  return Object.assign(entries, { consumed: at });
}
