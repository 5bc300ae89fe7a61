import fs from "node:fs/promises";
import path from "node:path";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { ProjectFiles } from "@/server/services/project-files";
import { prepareWorkspace, type HostIdentity } from "@/server/sandbox/identity";
import { sandboxIdentity } from "@/server/sandbox/launcher";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { openCheckpointStore } from "@/server/workspace";
import type { CheckpointRunner } from "@/server/workspace/checkpoint-git";

/** The runtime's view (open) plus what the server does when a tree or a project goes (remove). */
export type ProjectCheckpoints = CheckpointStores & {
  remove(projectId: string): Promise<void>;
  removeTree(projectId: string, treeId: string): Promise<void>;
};

// Each tree's checkpoint store: <data dir>/checkpoints/<project id> for the main tree, and
// <data dir>/checkpoints/<project id>.trees/<session id> for a session's worktree, beside (never
// inside) the trees (project-files.ts), so the project's own files and .git never see them.
// With a sandbox, the store's git reads the workspace inside it, as the project's user
// (checkpoint-git.ts CheckpointRunner); without one no process of the project runs to race it.
export function createCheckpointStores(dataDir: string, files: ProjectFiles, sandbox?: Sandbox): ProjectCheckpoints {
  const storeDir = (projectId: string) => path.join(dataDir, "checkpoints", projectId);
  const treesDir = (projectId: string) => path.join(dataDir, "checkpoints", `${projectId}.trees`);
  return {
    async open(projectId, treeId = null) {
      // Creates the main tree's folder if it is missing; a worktree exists while its session has it.
      const workspaceRoot = (await files.openTree({ projectId, treeId })).root;
      return openCheckpointStore({
        workspaceRoot,
        storeDir: treeId ? path.join(treesDir(projectId), treeId) : storeDir(projectId),
        runner: sandbox ? checkpointRunner(sandbox, workspaceRoot) : undefined,
      });
    },
    async remove(projectId) {
      await fs.rm(storeDir(projectId), { recursive: true, force: true });
      await fs.rm(treesDir(projectId), { recursive: true, force: true });
    },
    async removeTree(projectId, treeId) {
      await fs.rm(path.join(treesDir(projectId), treeId), { recursive: true, force: true });
    },
  };
}

function checkpointRunner(sandbox: Sandbox, workspaceRoot: string): CheckpointRunner | undefined {
  if (sandbox.mode !== "bwrap" || sandbox.host.unavailable) return undefined;
  const identity = sandboxIdentity(sandbox.host, workspaceRoot);
  return {
    identity,
    async own(store) {
      if (!identity) return;
      // The project's user reaches the store and the workspace (their parent folders traversable).
      prepareWorkspace(workspaceRoot, identity);
      await ownTree(store, identity);
    },
    async sandboxed(command, store) {
      const launch = await sandbox.launch({
        workspaceRoot,
        command,
        newSession: true,
        network: "none",
        source: { kind: "git", id: "checkpoints" },
        binds: [{ from: store, to: store }],
      });
      return { command: launch.command, close: () => launch.close() };
    },
  };
}

/** Hands the store to `identity`: the server's own folder, so its paths are walked as they are, links not followed. */
async function ownTree(store: string, identity: HostIdentity): Promise<void> {
  const entries = (await fs.readdir(store, { recursive: true })).map((name) => path.join(store, String(name)));
  // The marker last: a store whose marker is the identity's was handed over whole.
  const marker = path.join(store, "tandem-checkpoints");
  for (const entry of [...entries.filter((e) => e !== marker), store, ...entries.filter((e) => e === marker)]) {
    await fs.lchown(entry, identity.uid, identity.gid);
  }
}
