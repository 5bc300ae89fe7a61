import fs from "node:fs/promises";
import path from "node:path";
import type { TreeRef } from "@/lib/trees";
import type { DiskBudget } from "@/server/sandbox/disk-budget";
import { treeRoots } from "@/server/sandbox/tree-roots";
import { isInside, openWorkspace, type Workspace } from "@/server/workspace";
import { openParent, withFd, type ParentEntry } from "@/server/workspace/beneath";
import { removeTreeAt } from "@/server/workspace/beneath-entries";
import { errnoCode } from "@/server/workspace/errors";
import { limitWrites } from "@/server/workspace/write-budget";

export class ImportNotAllowedError extends Error {}

// Where each project's trees live on disk (server/sandbox/tree-roots.ts): its main tree at
// <data dir>/workspaces/<project id>, a session's worktree at <data dir>/worktrees/<project id>/<session id>.
// With a disk budget, every write of the server into a tree keeps within it (workspace/write-budget.ts).
export function createProjectFiles(dataDir: string, importRoots: string[], diskBudget?: DiskBudget) {
  const roots = treeRoots(dataDir);
  const root = path.dirname(roots.main("_"));
  const pathOf = (projectId: string) => roots.main(projectId);
  const treePath = (tree: TreeRef) =>
    tree.treeId ? roots.worktree(tree.projectId, tree.treeId) : pathOf(tree.projectId);

  async function openTree(tree: TreeRef): Promise<Workspace> {
    const { projectId } = tree;
    // A worktree's folder is made by the session that owns it (session-trees.ts), never here.
    if (!tree.treeId) await fs.mkdir(pathOf(projectId), { recursive: true });
    const workspace = await openWorkspace(treePath(tree));
    if (diskBudget) {
      limitWrites(workspace, {
        budgetMiB: diskBudget.budgetMiB,
        room: () => diskBudget.room(projectId, pathOf(projectId)),
        added: (bytes) => diskBudget.added(projectId, bytes),
      });
    }
    return workspace;
  }

  return {
    pathOf,
    treePath,
    openTree,

    open: (projectId: string): Promise<Workspace> => openTree({ projectId, treeId: null }),

    async createEmpty(projectId: string) {
      await fs.mkdir(pathOf(projectId), { recursive: true });
    },

    // Copies a folder on the server into a new workspace, only from folders an admin allowed
    // (TANDEM_IMPORT_ROOTS), compared by real path so symlinks cannot widen the list.
    async importFrom(projectId: string, source: string) {
      const real = await fs.realpath(path.resolve(source)).catch(() => {
        throw new ImportNotAllowedError(`Folder ${source} does not exist on the server.`);
      });
      const allowed = await Promise.all(importRoots.map((r) => fs.realpath(r).catch(() => null)));
      if (!allowed.some((r) => r !== null && isInside(r, real))) {
        throw new ImportNotAllowedError(
          importRoots.length
            ? `Importing from ${source} is not allowed. Allowed folders: ${importRoots.join(", ")}.`
            : "Importing folders is disabled. An admin can allow folders with TANDEM_IMPORT_ROOTS.",
        );
      }
      if (!(await fs.stat(real)).isDirectory()) throw new ImportNotAllowedError(`${source} is not a folder.`);
      await fs.cp(real, pathOf(projectId), { recursive: true, verbatimSymlinks: true, errorOnExist: false });
    },

    /** Removes the project's main tree and every worktree of its sessions. */
    async remove(projectId: string) {
      await removeEntry(root, projectId);
      await removeEntry(path.dirname(path.dirname(roots.worktree(projectId, "_"))), projectId);
    },

    /** The empty folder `git worktree add` checks a session's branch out into (session-trees.ts). */
    async makeWorktreeFolder(projectId: string, treeId: string) {
      await fs.mkdir(roots.worktree(projectId, treeId), { recursive: true });
    },

    /** Removes a session's worktree folder (session-trees.ts tells git afterwards). */
    async removeWorktree(projectId: string, treeId: string) {
      await removeEntry(path.dirname(roots.worktree(projectId, treeId)), treeId);
    },
  };
}

// A process the project left running may swap a folder for a link to a host folder while this
// runs as root: removeTreeAt opens each folder without following links before emptying it.
async function removeEntry(folder: string, name: string): Promise<void> {
  let parent: ParentEntry;
  try {
    parent = openParent(folder, name);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return;
    throw error;
  }
  await withFd(parent.dirFd, () =>
    removeTreeAt(parent.dirFd, parent.name).catch((error: unknown) =>
      errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error),
    ),
  );
}

export type ProjectFiles = ReturnType<typeof createProjectFiles>;
