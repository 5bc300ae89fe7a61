// A project's trees (docs/architecture.md, "Trees"): its main tree, the project's own folder, and
// a worktree for each session started on a branch of its own. A tree is named by the id of the
// session that owns it, or "main"; files, search, Source Control, terminals and the agent's tools
// all work in one tree at a time.

export const MAIN_TREE = "main";

/** A tree of a project: `treeId` null is the main tree. */
export type TreeRef = { projectId: string; treeId: string | null };

/** One key per tree, for state kept per tree (language servers, caches): the project's id for its main tree. */
export const treeKey = (tree: TreeRef): string => (tree.treeId ? `${tree.projectId}/${tree.treeId}` : tree.projectId);

/** The project of a `treeKey`. */
export const projectOfTreeKey = (key: string): string => key.split("/")[0]!;

export const treeIdOf = (name: string | null | undefined): string | null => (!name || name === MAIN_TREE ? null : name);

/** The default branch of a session on its own branch: `tandem/` and a slug of its title. */
export function branchForTitle(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return `tandem/${slug || "session"}`;
}

/** The message "Ask the agent to resolve" sends a session whose update from its base conflicts, naming the files. */
export const resolveConflictsMessage = (base: string, files: string[]) =>
  `Updating this branch from ${base} left merge conflicts in: ${files.join(", ")}. Resolve them: keep what both sides meant, remove the conflict markers, run the tests, then \`git add\` the files and \`git commit --no-edit\` to finish the merge.`;
