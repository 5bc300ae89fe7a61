import fs from "node:fs/promises";
import path from "node:path";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { ProjectFiles } from "@/server/services/project-files";
import { prepareWorkspace, projectIdentity, type HostIdentity } from "@/server/sandbox/identity";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { openCheckpointStore } from "@/server/workspace";
import type { CheckpointRunner } from "@/server/workspace/checkpoint-git";

/** The runtime's view (open) plus what the server does when a project goes (remove). */
export type ProjectCheckpoints = CheckpointStores & { remove(projectId: string): Promise<void> };

// Each project's checkpoint store: <data dir>/checkpoints/<project id>, beside (never inside) its
// workspace <data dir>/workspaces/<project id>, so the project's own files and .git never see it.
// With a sandbox, the store's git reads the workspace inside it, as the project's user
// (checkpoint-git.ts CheckpointRunner); without one no process of the project runs to race it.
export function createCheckpointStores(dataDir: string, files: ProjectFiles, sandbox?: Sandbox): ProjectCheckpoints {
  const storeDir = (projectId: string) => path.join(dataDir, "checkpoints", projectId);
  return {
    async open(projectId) {
      await files.open(projectId); // creates the workspace folder if it is missing
      const workspaceRoot = files.pathOf(projectId);
      return openCheckpointStore({
        workspaceRoot,
        storeDir: storeDir(projectId),
        runner: sandbox ? checkpointRunner(sandbox, workspaceRoot) : undefined,
      });
    },
    async remove(projectId) {
      await fs.rm(storeDir(projectId), { recursive: true, force: true });
    },
  };
}

function checkpointRunner(sandbox: Sandbox, workspaceRoot: string): CheckpointRunner | undefined {
  if (sandbox.mode !== "bwrap" || sandbox.host.unavailable) return undefined;
  const identity = sandbox.host.perProjectUid ? projectIdentity(workspaceRoot) : undefined;
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
