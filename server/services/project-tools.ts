import type { Db } from "@/server/db/client";
import { getToolSettings, updateToolSettings } from "@/server/db/repositories/tool-settings";
import type { Tool } from "@/server/tools/define-tool";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { discoverTools, DiscoveryError } from "@/server/tools/discovery/discovered-tools";
import {
  formatMcpServers,
  hideMcpValues,
  parseMcpServers,
  parseMcpServersText,
  type ConfigProblem,
  type McpServersConfig,
} from "@/lib/mcp-config";
import { createMcpServers, sandboxedLauncher, type McpServerStatus } from "@/server/tools/mcp/project-servers";
import type { Workspace } from "@/server/workspace";
import { getProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { getSettings } from "@/server/db/repositories/settings";
import { parsePolicy } from "@/server/agent/policy";
import { refusedUnattended } from "@/server/agent/command-gate";
import type { SecretEnvironment } from "@/server/services/secrets";
import { parseProjectLanguagePlugins } from "@/lib/language-plugins";

// A project's own tools: its MCP servers and the tools its discovery command finds, from the
// project's tool settings. Connections are kept across turns; discovery results are cached for
// a short while. A broken server or command shows up in `status` and never stops a turn. The
// discovery and call commands meet the project's deny rules and the destructive-command guard, as
// every command the agent starts does; no one is there to approve them, so a refused one does not run.

const DISCOVERY_TTL_MS = 30_000;

export type DiscoveryStatus = { configured: boolean; tools: string[]; error?: string; at?: number };
export type ProjectToolsStatus = { servers: McpServerStatus[]; discovery: DiscoveryStatus };

export type ProjectTools = ReturnType<typeof createProjectTools>;

/**
 * `mcpAllowHosts`: remote MCP hosts the server's admin allows on local or private addresses
 * (TANDEM_MCP_ALLOW_HOSTS); `projectNetwork`: the project's network policy in force ("off"
 * refuses remote MCP servers).
 */
export function createProjectTools(options: {
  db: Db;
  sandbox: Sandbox;
  openWorkspace(projectId: string): Promise<Workspace>;
  mcpAllowHosts: readonly string[];
  projectNetwork(projectId: string): Promise<NetworkPolicy>;
  /** The project's secrets without anyone's own: MCP servers and discovery run for everyone. */
  secrets?(projectId: string): Promise<SecretEnvironment>;
  connectWaitMs?: number;
}) {
  const { db } = options;
  const mcp = createMcpServers({
    fetchPolicy: { allowHosts: options.mcpAllowHosts, projectNetwork: options.projectNetwork },
  });
  const discovered = new Map<string, { key: string; at: number; tools: Tool[]; error?: string }>();

  async function settingsOf(projectId: string) {
    const row = await getToolSettings(db, projectId);
    const parsed = parseMcpServers(row.mcpServers);
    return { row, servers: parsed.ok ? parsed.servers : ({} as McpServersConfig) };
  }

  async function syncServers(projectId: string, workspace: Workspace) {
    const { row, servers } = await settingsOf(projectId);
    const secrets = options.secrets ? () => options.secrets!(projectId) : undefined;
    await mcp.sync(projectId, servers, sandboxedLauncher(workspace.root, options.sandbox, projectId, secrets));
    return row;
  }

  async function discover(
    projectId: string,
    workspace: Workspace,
    row: Awaited<ReturnType<typeof getToolSettings>>,
    fresh = false,
  ) {
    if (!row.toolDiscoveryCommand) {
      discovered.delete(projectId);
      return { tools: [] as Tool[] };
    }
    const key = JSON.stringify([row.toolDiscoveryCommand, row.toolCallCommand]);
    const cached = discovered.get(projectId);
    if (!fresh && cached?.key === key && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached;
    let entry: { key: string; at: number; tools: Tool[]; error?: string };
    const refused = await refusedSetting(projectId, [row.toolDiscoveryCommand, row.toolCallCommand]);
    if (refused) {
      entry = { key, at: Date.now(), tools: [], error: refused };
      discovered.set(projectId, entry);
      return entry;
    }
    try {
      const tools = await discoverTools({
        workspaceRoot: workspace.root,
        sandbox: options.sandbox,
        projectId,
        settings: { discoveryCommand: row.toolDiscoveryCommand, callCommand: row.toolCallCommand },
        secrets: await options.secrets?.(projectId),
      });
      entry = { key, at: Date.now(), tools };
    } catch (error) {
      entry = {
        key,
        at: Date.now(),
        tools: [],
        error:
          error instanceof DiscoveryError ? error.message : `The discovery command failed: ${(error as Error).message}`,
      };
    }
    discovered.set(projectId, entry);
    return entry;
  }

  /** Why the project's policy refuses one of these commands, or null. */
  async function refusedSetting(projectId: string, commands: Array<string | null>): Promise<string | null> {
    const [settings, instance] = await Promise.all([
      getProjectAgentSettings(db, projectId),
      getSettings(db, ["commandGuard"]),
    ]);
    const policy = { ...parsePolicy(settings), guard: instance.commandGuard };
    for (const command of commands) {
      const why = command ? await refusedUnattended(policy, command) : null;
      if (why) return `The command \`${command}\` is refused: ${why} Change it in the project's tool settings.`;
    }
    return null;
  }

  return {
    /** For a turn: the connected servers' tools and the discovered tools. */
    async tools(projectId: string, workspace: Workspace): Promise<Tool[]> {
      const row = await syncServers(projectId, workspace);
      const [fromMcp, fromDiscovery] = await Promise.all([
        mcp.tools(projectId, options.connectWaitMs),
        discover(projectId, workspace, row),
      ]);
      return [...fromMcp, ...fromDiscovery.tools];
    },

    /**
     * `withValues`: the MCP servers' `env` and `headers` values, which are the team's keys to other
     * services, for those who may change them (the project's admins); others see the names only.
     */
    async settings(projectId: string, options: { withValues: boolean }) {
      const { row } = await settingsOf(projectId);
      const servers = (row.mcpServers ?? {}) as Record<string, unknown>;
      return {
        mcpServersText: formatMcpServers(options.withValues ? servers : hideMcpValues(servers)),
        toolDiscoveryCommand: row.toolDiscoveryCommand ?? "",
        toolCallCommand: row.toolCallCommand ?? "",
        languageServersText: JSON.stringify(row.languageServers ?? {}, null, 2),
      };
    },

    /** Saves what parses; returns every problem, by where it is, when something does not (nothing is saved then). */
    async update(
      projectId: string,
      input: {
        mcpServersText?: string;
        toolDiscoveryCommand?: string;
        toolCallCommand?: string;
        languageServersText?: string;
      },
    ): Promise<{ ok: true } | { ok: false; problems: ConfigProblem[] }> {
      const patch: Parameters<typeof updateToolSettings>[2] = {};
      if (input.mcpServersText !== undefined) {
        const parsed = parseMcpServersText(input.mcpServersText);
        if (!parsed.ok) return parsed;
        patch.mcpServers = parsed.servers;
      }
      if (input.languageServersText !== undefined) {
        const parsed = parseProjectLanguagePlugins(input.languageServersText);
        if (!parsed.ok) return { ok: false, problems: [{ path: "languageServers", message: parsed.problem }] };
        patch.languageServers = parsed.plugins;
      }
      if (input.toolDiscoveryCommand !== undefined)
        patch.toolDiscoveryCommand = input.toolDiscoveryCommand.trim() || null;
      if (input.toolCallCommand !== undefined) patch.toolCallCommand = input.toolCallCommand.trim() || null;
      const next = { ...(await getToolSettings(db, projectId)), ...patch };
      if (next.toolDiscoveryCommand && !next.toolCallCommand) {
        return {
          ok: false,
          problems: [{ path: "toolCallCommand", message: "set the call command too: discovered tools run through it" }],
        };
      }
      await updateToolSettings(db, projectId, patch);
      discovered.delete(projectId);
      return { ok: true };
    },

    /** Connects what is configured (waiting up to `waitMs`) and reports each server and the discovery. */
    async status(projectId: string, waitMs = 5_000): Promise<ProjectToolsStatus> {
      const workspace = await options.openWorkspace(projectId);
      const row = await syncServers(projectId, workspace);
      await mcp.settled(projectId, waitMs);
      const found = await discover(projectId, workspace, row);
      return {
        servers: mcp.status(projectId),
        discovery: {
          configured: !!row.toolDiscoveryCommand,
          tools: found.tools.map((t) => t.name),
          ...("error" in found && found.error ? { error: found.error } : {}),
          ...("at" in found ? { at: found.at } : {}),
        },
      };
    },

    async reconnect(projectId: string, server: string) {
      return mcp.reconnect(projectId, server);
    },

    async rediscover(projectId: string) {
      const workspace = await options.openWorkspace(projectId);
      await discover(projectId, workspace, (await settingsOf(projectId)).row, true);
    },

    /** Stops the project's MCP servers and forgets its discovered tools (the project is deleted). */
    async close(projectId: string) {
      discovered.delete(projectId);
      await mcp.closeProject(projectId);
    },

    dispose: () => mcp.dispose(),
  };
}
