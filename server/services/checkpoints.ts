import fs from "node:fs/promises";
import path from "node:path";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { ProjectFiles } from "@/server/services/project-files";
import { openCheckpointStore } from "@/server/workspace";

/** The runtime's view (open) plus what the server does when a project goes (remove). */
export type ProjectCheckpoints = CheckpointStores & { remove(projectId: string): Promise<void> };

// Each project's checkpoint store: <data dir>/checkpoints/<project id>, beside (never inside) its
// workspace <data dir>/workspaces/<project id>, so the project's own files and .git never see it.
export function createCheckpointStores(dataDir: string, files: ProjectFiles): ProjectCheckpoints {
  const storeDir = (projectId: string) => path.join(dataDir, "checkpoints", projectId);
  return {
    async open(projectId) {
      await files.open(projectId); // creates the workspace folder if it is missing
      return openCheckpointStore({ workspaceRoot: files.pathOf(projectId), storeDir: storeDir(projectId) });
    },
    async remove(projectId) {
      await fs.rm(storeDir(projectId), { recursive: true, force: true });
    },
  };
}
