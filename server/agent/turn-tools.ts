import type { Workspace } from "@/server/workspace";
import type { Tool } from "@/server/tools/define-tool";
import type { Delegator } from "@/server/tools/delegate";
import type { ToolSet } from "@/server/tools/registry";
import { catalogTool } from "@/server/tools/catalog";
import { scheduleTaskTool } from "@/server/tools/schedule-task";
import { searchKnowledgeBaseTool } from "@/server/tools/search-knowledge-base";
import { sendEmailTool } from "@/server/tools/send-email";
import { sendMessageTool } from "@/server/tools/send-message";
import { skillTool } from "@/server/tools/skill";
import { statusTool, type SessionReport } from "@/server/tools/status";
import { gitTool } from "@/server/tools/git";
import { type ForgeCall, type ForgeKind, forgeApiTool } from "@/server/tools/forge-api";
import { gitRepository } from "@/server/git/repository";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { workflowTool } from "@/server/tools/workflow";
import { loadWorkflows, WORKFLOWS_DIR } from "@/server/tools/workflow-engine";
import { loadAgents, loadSkills, SKILLS_DIR } from "@/server/agent/definitions";
import type { AgentExtensions } from "@/server/agent/extensions";

// The tools a turn adds to the runtime's own: the project's MCP and discovered tools, the
// server's optional services (knowledge index, scheduler, mail, the project's chat channels), and the workspace-defined
// catalog, skills and workflows, bound to this project's workspace.

export async function turnTools(input: {
  extensions: AgentExtensions | undefined;
  projectId: string;
  workspace: Workspace;
  delegator: Delegator;
  /** The turn's final tool set, for the catalog (known once every tool is gathered). */
  toolSet: () => ToolSet;
  /** What is in force for the session, for the status tool (known once the turn is prepared). */
  report: () => Omit<SessionReport, "mcpServers" | "telemetry">;
  /** The git tool's commands run in the project's sandbox, as Source Control's do. */
  sandbox: Sandbox;
  /** The name of the person a turn works for: the git tool's commits are theirs, made by the agent. */
  personName: (userId: string) => Promise<string>;
  /** Whose forge tokens the turn may use: the session's author while it is theirs alone (as its secrets), else null. */
  personId: string | null;
}): Promise<Tool[]> {
  const { extensions: ext, workspace } = input;
  // skill only for a project that has skills; workflow sent in full only to one that has workflows
  // (otherwise it waits behind tool_search, for an inline one): each schema costs every request.
  const tandem = new Set((await workspace.list(".tandem").catch(() => [])).map((e) => e.name));
  const tools: Tool[] = [];
  if (ext?.knowledge) tools.push(searchKnowledgeBaseTool(ext.knowledge));
  if (ext?.scheduler) tools.push(scheduleTaskTool(ext.scheduler));
  if (ext?.mail) tools.push(sendEmailTool(ext.mail));
  if (ext?.forgeApi && input.personId) {
    const forges: Partial<Record<ForgeKind, ForgeCall>> = await ext
      .forgeApi(input.personId, input.projectId)
      .catch((error: unknown) => {
        console.error(`forge tokens of ${input.personId} could not be read:`, error);
        return {};
      });
    for (const kind of ["github", "gitlab"] as const) {
      const call = forges[kind];
      if (call) tools.push(forgeApiTool(kind, call));
    }
  }
  const channels = ext?.channels ? await ext.channels.names(input.projectId) : [];
  if (ext?.channels && channels.length) tools.push(sendMessageTool(ext.channels, channels));
  tools.push(
    catalogTool(async () => {
      const [agents, skills, workflows] = await Promise.all([
        loadAgents(workspace),
        loadSkills(workspace),
        loadWorkflows(workspace),
      ]);
      return {
        agents: agents.agents.map((a) => ({ name: a.name, description: a.description })),
        skills: skills.skills.map((s) => ({ name: s.name, description: s.description })),
        workflows: workflows.workflows.map((w) => ({ name: w.name, description: describeWorkflow(w) })),
        tools: Object.values(input.toolSet()).map((t) => ({ name: t.name, description: t.description })),
        problems: [...agents.problems, ...skills.problems, ...workflows.problems].map((p) => `${p.path}: ${p.message}`),
      };
    }),
    ...(tandem.has(SKILLS_DIR.slice(".tandem/".length))
      ? [skillTool(async () => (await loadSkills(workspace)).skills)]
      : []),
    eagerIf(
      tandem.has(WORKFLOWS_DIR.slice(".tandem/".length)),
      workflowTool(() => loadWorkflows(workspace), input.delegator),
    ),
    gitTool(
      (ctx) => gitRepository(input.sandbox, ctx.workspace.root),
      async (ctx) => ({
        name: `${await input.personName(ctx.userId)} (Tandem agent)`,
        email: `agent+${ctx.sessionId}@tandem.invalid`,
      }),
    ),
    statusTool(async ({ telemetryHours }) => ({
      ...input.report(),
      mcpServers: ext?.mcpServers ? await ext.mcpServers(input.projectId) : null,
      telemetry: ext?.telemetry
        ? await ext.telemetry(input.projectId, new Date(Date.now() - telemetryHours * 3_600_000))
        : null,
    })),
  );
  const project = await ext?.projectTools?.(input.projectId, workspace).catch((error: unknown) => {
    console.error(`project tools of ${input.projectId} failed to load:`, error);
    return [];
  });
  return [...tools, ...(project ?? [])];
}

function eagerIf(eager: boolean, tool: Tool): Tool {
  return eager ? { ...tool, onDemand: undefined } : tool;
}

function describeWorkflow(w: { description: string; inputs: { name: string; required: boolean }[] }): string {
  const inputs = w.inputs.map((i) => (i.required ? i.name : `${i.name}?`)).join(", ");
  return `${w.description || "(no description)"}${inputs ? ` Inputs: ${inputs}.` : ""}`;
}
