import path from "node:path";
import { recoverTransactions } from "./transaction";
import { Workspace } from "./workspace";

export { Workspace, versionOf, READ_ONLY_BYTES, MAX_FILE_BYTES, type WriteOptions, type FileStat } from "./workspace";
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode } from "./errors";
export { isInside, type ResolvedPath } from "./paths";
export { type TextFormat } from "./text-codec";
export { watchWorkspace, type WatchOptions } from "./watch";

const open = new Map<string, Promise<Workspace>>();

/**
 * The Workspace for a project's folder, shared per root so that its mutations stay serialized and
 * its ignore-rule cache is reused across requests.
 */
export function openWorkspace(workspacePath: string): Promise<Workspace> {
  const key = path.resolve(workspacePath);
  let workspace = open.get(key);
  if (!workspace) {
    // A multi-file change cut short by a crash is finished or undone before anyone reads.
    workspace = Workspace.open(key).then(async (opened) => {
      await recoverTransactions(opened);
      return opened;
    });
    open.set(key, workspace);
    workspace.catch(() => open.delete(key));
  }
  return workspace;
}
export { CheckpointStore, openCheckpointStore } from "./checkpoints";
export { CheckpointError } from "./checkpoint-errors";
export { receiveFile, openFileStream, freeName, numberedName, TooLargeError, type OnExists } from "./receive";
export { ChangeQueue } from "./change-queue";
