import type { AgentRuntime } from "@/server/agent/runtime";
import type { Db } from "@/server/db/client";
import { deleteProject } from "@/server/db/repositories/projects";
import type { ProjectCheckpoints } from "@/server/services/checkpoints";
import type { Extensions } from "@/server/services/extensions";
import type { ProjectFiles } from "@/server/services/project-files";
import type { TerminalService } from "@/server/terminal";

export type ProjectRemovalDeps = {
  db: Db;
  terminals: TerminalService;
  agent: AgentRuntime;
  extensions?: Extensions;
  files: ProjectFiles;
  checkpoints: ProjectCheckpoints;
};

/**
 * Deletes a project and everything it has, in an order that leaves nothing running against it:
 * its terminals, agent turns and MCP servers stop first, then its rows go (sessions, events, notes
 * and settings cascade), then its workspace and checkpoint store are removed from disk.
 */
export async function removeProject(deps: ProjectRemovalDeps, projectId: string) {
  deps.terminals.closeProject(projectId);
  await deps.agent.stopProject(projectId);
  await deps.extensions?.projectTools.close(projectId);
  await deleteProject(deps.db, projectId);
  await deps.files.remove(projectId);
  await deps.checkpoints.remove(projectId);
}
