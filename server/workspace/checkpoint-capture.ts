import path from "node:path";
import { CheckpointError } from "./checkpoint-errors";
import type { CheckpointGit } from "./checkpoint-git";
import { GITLINK_MODE, diffTrees, type TreeEntryChange } from "./checkpoint-tree";

const PLACEHOLDER = ".tandem-checkpoint-placeholder";
const MAX_NESTING = 8;
// What `git add` says about a nested repository that has no commit yet (it then adds nothing there).
const UNBORN_NESTED = /^error: '(.+)\/' does not have a commit checked out$/gm;

/**
 * Brings the store's private index up to date with the workspace and writes it as a tree (returned
 * with what changed since `previousTree`): git's index makes unchanged files cost one lstat. `previousTree` is the last tree written from this
 * index; comparing with it finds what needs fixing up:
 * - a nested repository (a folder with its own .git) would be recorded as a gitlink, i.e. as a
 *   commit id whose files are not in the store. It is replaced by a placeholder entry so that the
 *   next `git add` walks into the folder as a plain one, with every .gitignore above it applying;
 * - when a .gitignore changed, files it now ignores leave the index (git keeps tracked files
 *   tracked otherwise).
 */
export async function captureWorkspace(git: CheckpointGit, previousTree: string): Promise<{ tree: string; changes: TreeEntryChange[] }> {
  let nested = await addAll(git);
  let tree = await git.text(["write-tree"]);
  let changes = await diffTrees(git, previousTree, tree, { renames: false });
  for (let round = 0; ; round++) {
    const gitlinks = changes.filter((change) => change.newMode === GITLINK_MODE).map((change) => change.path);
    const repos = [...new Set([...gitlinks, ...nested])];
    if (repos.length === 0) break;
    if (round === MAX_NESTING) {
      throw new CheckpointError("GIT_FAILED", `Repositories are nested too deeply under '${repos[0]}' to snapshot. Move or ignore (.gitignore) the inner ones.`);
    }
    await unfold(git, gitlinks, repos);
    nested = await addAll(git);
    tree = await git.text(["write-tree"]);
    changes = await diffTrees(git, previousTree, tree, { renames: false });
  }
  if (changes.some((change) => path.posix.basename(change.path) === ".gitignore") && (await dropIgnored(git))) {
    tree = await git.text(["write-tree"]);
    changes = await diffTrees(git, previousTree, tree, { renames: false });
  }
  return { tree, changes };
}

/** `git add -A`; returns the nested repositories without a commit, which git skipped. */
async function addAll(git: CheckpointGit): Promise<string[]> {
  // --ignore-errors: one unreadable file must not cost the whole snapshot (it keeps its last version).
  const { stderr } = await git.run(["add", "--all", "--ignore-errors"], { okCodes: [1] });
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
  const { stdout } = await git.run(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"]);
  if (stdout.length === 0) return false;
  await git.run(["update-index", "-z", "--force-remove", "--stdin"], { input: stdout });
  return true;
}
