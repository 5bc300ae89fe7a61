import path from "node:path";
import { recoverTransactions } from "./transaction";
import { Workspace } from "./workspace";

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
