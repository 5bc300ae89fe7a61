import fs from "node:fs/promises";
import path from "node:path";
import type { DiskBudget } from "@/server/sandbox/disk-budget";
import { isInside, openWorkspace, type Workspace } from "@/server/workspace";
import { openParent, withFd, type ParentEntry } from "@/server/workspace/beneath";
import { removeTreeAt } from "@/server/workspace/beneath-entries";
import { errnoCode } from "@/server/workspace/errors";
import { limitWrites } from "@/server/workspace/write-budget";

export class ImportNotAllowedError extends Error {}

// Where each project's workspace lives on disk: <data dir>/workspaces/<project id>. With a disk
// budget, every write of the server into a workspace keeps within it (workspace/write-budget.ts).
export function createProjectFiles(dataDir: string, importRoots: string[], diskBudget?: DiskBudget) {
  const root = path.join(dataDir, "workspaces");
  const pathOf = (projectId: string) => path.join(root, projectId);

  return {
    pathOf,

    async open(projectId: string): Promise<Workspace> {
      await fs.mkdir(pathOf(projectId), { recursive: true });
      const workspace = await openWorkspace(pathOf(projectId));
      if (diskBudget) {
        limitWrites(workspace, {
          budgetMiB: diskBudget.budgetMiB,
          room: () => diskBudget.room(projectId, workspace.root),
          added: (bytes) => diskBudget.added(projectId, bytes),
        });
      }
      return workspace;
    },

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

    // A process the project left running may swap a folder for a link to a host folder while this
    // runs as root: removeTreeAt opens each folder without following links before emptying it.
    async remove(projectId: string) {
      let parent: ParentEntry;
      try {
        parent = openParent(root, projectId);
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return;
        throw error;
      }
      await withFd(parent.dirFd, () =>
        removeTreeAt(parent.dirFd, parent.name).catch((error: unknown) =>
          errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error),
        ),
      );
    },
  };
}

export type ProjectFiles = ReturnType<typeof createProjectFiles>;
