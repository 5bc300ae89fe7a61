import path from "node:path";

// Where a project's trees live under the data directory (docs/architecture.md, "Trees"): the main
// tree at workspaces/<project>, a session's worktree at worktrees/<project>/<session>. Both are
// folders the server chose; nothing in a tree decides where another one is. The sandbox reads
// this to tell a worktree from a main tree (launcher.ts), and project-files.ts places trees by it.

export interface TreeRoots {
  main(projectId: string): string;
  worktree(projectId: string, treeId: string): string;
  /** The main tree whose repository a worktree root belongs to; undefined for any other folder. */
  mainOf(root: string): string | undefined;
}

export function treeRoots(dataDir: string): TreeRoots {
  const workspaces = path.join(path.resolve(dataDir), "workspaces");
  const worktrees = path.join(path.resolve(dataDir), "worktrees");
  return {
    main: (projectId) => path.join(workspaces, projectId),
    worktree: (projectId, treeId) => path.join(worktrees, projectId, treeId),
    mainOf(root) {
      const parts = path.relative(worktrees, path.resolve(root)).split(path.sep);
      if (parts.length !== 2 || parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
      return path.join(workspaces, parts[0]!);
    },
  };
}
