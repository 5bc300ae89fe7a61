import path from "node:path";
import { isInside } from "@/server/workspace";
import { withIdentityInCommand } from "@/server/sandbox/launcher";
import { createRedactor, type ProcessSecrets, type Redactor } from "@/server/secrets/redactor";
import { SECRET_MIN_LENGTH } from "@/lib/secrets";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Tool } from "../define-tool";
import { isStdio, isTcp, toolAllowed, type McpServerConfig, type McpServersConfig } from "@/lib/mcp-config";
import { createMcpConnection, type McpConnection, type McpFetchPolicy, type StdioLauncher } from "./connection";
import { mcpTool } from "./mcp-tool";

// The MCP servers of every open project: one connection per configured server, kept across
// turns and sessions, replaced when its configuration changes. Connections start in the
// background; a turn waits a little for servers still connecting, then goes on without them.

export type McpServerStatus = {
  name: string;
  transport: "stdio" | "streamable-http" | "sse" | "websocket" | "tcp" | "remote";
  status: "connecting" | "connected" | "failed" | "closed";
  error?: string;
  retryAt?: number | null;
  tools: string[];
  trusted: boolean;
  eager: boolean;
};

type Entry = { key: string; connection: McpConnection };

export type McpServers = ReturnType<typeof createMcpServers>;

/** `fetchPolicy`: what remote servers are held to (connection.ts): the address check, the project's policy. */
export function createMcpServers(options: {
  fetchPolicy: McpFetchPolicy;
  maxBackoffMs?: number;
  onChange?(projectId: string): void;
}) {
  const projects = new Map<string, Map<string, Entry>>();

  /** The project's connections, once none is mid-attempt or after `timeoutMs`, whichever comes first. */
  async function settledEntries(projectId: string, timeoutMs: number): Promise<Entry[]> {
    const entries = [...(projects.get(projectId)?.values() ?? [])];
    await Promise.race([
      Promise.all(entries.map((e) => e.connection.ready())),
      new Promise((r) => setTimeout(r, timeoutMs).unref()),
    ]);
    return entries;
  }

  return {
    /** Makes the project's connections match `servers`: new ones start connecting, changed ones restart, removed ones close. */
    async sync(projectId: string, servers: McpServersConfig, launch: StdioLauncher) {
      const current = projects.get(projectId) ?? new Map<string, Entry>();
      projects.set(projectId, current);
      const closing: Promise<void>[] = [];
      for (const [name, entry] of current) {
        const wanted = servers[name];
        if (wanted && JSON.stringify(wanted) === entry.key) continue;
        current.delete(name);
        closing.push(entry.connection.close());
      }
      await Promise.all(closing);
      for (const [name, config] of Object.entries(servers)) {
        if (current.has(name)) continue;
        const connection = createMcpConnection({
          name,
          config,
          launch,
          fetchPolicy: options.fetchPolicy,
          projectId,
          maxBackoffMs: options.maxBackoffMs,
          onChange: () => options.onChange?.(projectId),
        });
        current.set(name, { key: JSON.stringify(config), connection });
        void connection.connect();
      }
    },

    /** The tools of the project's connected servers; waits up to `waitMs` for servers still connecting. */
    async tools(projectId: string, waitMs = 5_000): Promise<Tool[]> {
      const tools: Tool[] = [];
      for (const { connection } of await settledEntries(projectId, waitMs)) {
        const state = connection.state;
        if (state.status !== "connected") continue;
        for (const info of state.tools) {
          if (!toolAllowed(connection.config, info.name)) continue;
          tools.push(
            mcpTool(connection.name, connection.config, info, (tool, args, signal) =>
              connection.call(tool, args, signal),
            ),
          );
        }
      }
      return tools;
    },

    status(projectId: string): McpServerStatus[] {
      return [...(projects.get(projectId)?.values() ?? [])].map(({ connection }) => {
        const { config } = connection;
        const state = connection.state;
        return {
          name: connection.name,
          transport:
            state.status === "connected"
              ? state.transport
              : isStdio(config)
                ? "stdio"
                : isTcp(config)
                  ? "tcp"
                  : "remote",
          status: state.status,
          ...(state.status === "failed" ? { error: state.error, retryAt: state.retryAt } : {}),
          tools:
            state.status === "connected"
              ? state.tools.filter((t) => toolAllowed(config, t.name)).map((t) => t.name)
              : [],
          trusted: config.trust === true,
          eager: config.eager === true,
        };
      });
    },

    /** Waits until no server of the project is mid-attempt (tests, the settings page after a save). */
    async settled(projectId: string, timeoutMs = 20_000) {
      await settledEntries(projectId, timeoutMs);
    },

    async reconnect(projectId: string, name: string): Promise<boolean> {
      const entry = projects.get(projectId)?.get(name);
      if (!entry) return false;
      await entry.connection.reconnect();
      return true;
    },

    async closeProject(projectId: string) {
      const entries = [...(projects.get(projectId)?.values() ?? [])];
      projects.delete(projectId);
      await Promise.all(entries.map((e) => e.connection.close()));
    },

    async dispose() {
      await Promise.all([...projects.keys()].map((id) => this.closeProject(id)));
    },
  };
}

/** Starts a stdio server in the project's sandbox: the workspace is its only writable place, the network the project's policy. */
export function sandboxedLauncher(
  workspaceRoot: string,
  sandbox: Sandbox,
  projectId?: string,
  /** The project's secrets (its team's and its own), read when the server (re)starts. */
  secrets?: () => Promise<ProcessSecrets>,
): StdioLauncher {
  return async (config) => {
    const cwd = path.resolve(workspaceRoot, config.cwd ?? ".");
    if (!isInside(workspaceRoot, cwd)) {
      throw new Error(`cwd "${config.cwd}" is outside the project's workspace; use a path inside it`);
    }
    const held = await secrets?.();
    const launch = await sandbox.launch({
      workspaceRoot,
      command: [config.command, ...(config.args ?? [])],
      cwd,
      newSession: true,
      projectId,
      source: { kind: "mcp", id: config.command },
      // The server's own `env` is configured for it on purpose (API keys included), so it passes
      // whatever its names look like, as a secret does: in the one channel that keeps the names
      // the sandbox sets or that load code (LD_PRELOAD...) out, since the steps that start the
      // sandbox (setpriv, prlimit, nsenter) run as root with this environment.
      secrets: { ...held?.env, ...config.env },
    });
    // The SDK's transport spawns without uid/gid, so the identity switch goes into the command.
    const command = withIdentityInCommand(launch.command);
    // What it prints when it fails is shown to everyone in the project: its own keys are hidden as secrets are.
    const own = createRedactor(
      Object.entries(config.env ?? {})
        .filter(([, value]) => value.length >= SECRET_MIN_LENGTH)
        .map(([name, value]) => ({ name, value })),
    );
    const redactors = [held?.redactor, own].filter((r): r is Redactor => !!r && !r.empty);
    return {
      command: command.file,
      args: command.args,
      env: command.env,
      cwd: command.cwd,
      release: () => void launch.close(),
      ...(redactors.length ? { redact: (text: string) => redactors.reduce((t, r) => r.redact(t), text) } : {}),
    };
  };
}

export type { McpServerConfig };
