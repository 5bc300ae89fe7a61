import { randomBytes } from "node:crypto";
import path from "node:path";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { fdRelay } from "./fd-relay";
import {
  openEgressListener,
  type EgressClient,
  type EgressConnection,
  type EgressListener,
  type EgressRefusal,
} from "./egress-proxy";
import type { Resolver } from "./admit-host";
import type { DiskBudget } from "./disk-budget";
import {
  sandboxCommand,
  sandboxIdentity,
  type SandboxedCommand,
  type SandboxHost,
  type SandboxMode,
  type SandboxOptions,
  type ToolchainMount,
} from "./launcher";
import { runtimeDir } from "./runtime-dir";
import { createWorkspaceNetworks, type NetworkLease, type WorkspaceNetworks } from "./workspace-network";

// The sandbox as the rest of the server uses it: one object per server, handed to terminals,
// the agent's shell, MCP stdio servers, discovery commands, git and language servers. It knows
// the host (bubblewrap, masks, identity, limits) and the projects' network policies, and opens
// an egress listener for each process that may use the network, or, for the processes of a
// workspace that share its network namespace (workspace-network.ts), one for the namespace.

/**
 * Who made a connection: a terminal, an agent session, a server-side component, or a process of
 * a workspace's shared network that did not send its proxy credentials (`workspace`).
 */
export type EgressSource = {
  kind: "terminal" | "session" | "mcp" | "discovery" | "git" | "setup" | "workspace";
  id: string;
};

export type LoggedConnection = EgressConnection & { projectId: string; source: EgressSource };

/** Where the server keeps projects' policies (the database, behind a repository). */
export interface NetworkPolicies {
  get(projectId: string): Promise<NetworkPolicy>;
}

export interface LaunchRequest extends Omit<SandboxOptions, "egressSocket"> {
  /** The project whose policy applies; without one the process has no network. */
  projectId?: string;
  source: EgressSource;
  /** `none` for processes that never get network, whatever the policy (language servers). */
  network?: "project" | "none";
  /** Further narrows the project's policy to these hosts (git: the remote's host). */
  onlyHosts?: string[];
}

export interface SandboxLaunch {
  command: SandboxedCommand;
  /** Hosts the proxy refused for this process so far. */
  denials(): string[];
  /** The same, with why each was refused. */
  refusals(): EgressRefusal[];
  /** Closes the process's egress listener; call when the process has exited. */
  close(): Promise<void>;
  /** The disk-budget message when the project went over its budget, else null. */
  diskFull(): Promise<string | null>;
  /** Called each time the project goes over its disk budget while this process runs (terminals print it). */
  onDiskFull(listener: (message: string) => void): void;
}

export interface Sandbox {
  readonly host: SandboxHost;
  readonly mode: SandboxMode;
  /** The project's network policy; `off` for every project when the sandbox cannot enforce one. */
  network(projectId: string): Promise<NetworkPolicy>;
  launch(request: LaunchRequest): Promise<SandboxLaunch>;
  /** Why the project may not write more (its disk budget is reached), else null. */
  diskFull(projectId: string): Promise<string | null>;
  /**
   * The workspaces' shared networks (workspace-network.ts): null when processes cannot share one
   * here (no bubblewrap, or a server that is not root), and each keeps a network of its own.
   */
  readonly networks: WorkspaceNetworks | null;
}

/** The processes that join their workspace's network; git (narrowed, with credentials) and language servers do not. */
const SHARING: ReadonlySet<EgressSource["kind"]> = new Set(["terminal", "session", "mcp", "setup"]);

/** The processes that get their project's toolchains: what people and the agent run, not git's or checkpoints' own. */
const WITH_TOOLCHAINS: ReadonlySet<EgressSource["kind"]> = new Set([
  "terminal",
  "session",
  "mcp",
  "discovery",
  "setup",
]);

/** Which toolchains a project's processes get (server/environment/): installed folders, bound read-only. */
export interface ProjectToolchains {
  forProject(projectId: string): Promise<ToolchainMount[]>;
}

export type SandboxDeps = {
  host: SandboxHost;
  policies?: NetworkPolicies;
  log?(connection: LoggedConnection): void;
  testHosts?: ReadonlyMap<string, string>;
  resolve?: Resolver;
  /** Measures projects' workspaces while they run commands and stops growth past the budget. */
  diskBudget?: DiskBudget;
  /** The toolchains every process of a project sees first on its PATH. */
  toolchains?: ProjectToolchains;
};

const OFF: NetworkPolicy = { policy: "off", allowHosts: [] };

export function createSandbox(deps: SandboxDeps): Sandbox {
  const { host } = deps;
  // Network needs the egress proxy's native module (fd-relay.ts): without it, projects get none.
  const enforceable = host.mode === "bwrap" && deps.policies !== undefined && fdRelay() !== null;

  async function network(projectId: string): Promise<NetworkPolicy> {
    if (!enforceable) return OFF;
    return deps.policies!.get(projectId);
  }

  const egressListener = (projectId: string, extra: { onlyHosts?: string[]; source: EgressSource }) =>
    openEgressListener({
      socketPath: path.join(runtimeDir().sockets, `${randomBytes(12).toString("hex")}.sock`),
      policy: () => network(projectId),
      onlyHosts: extra.onlyHosts,
      testHosts: deps.testHosts,
      resolve: deps.resolve,
      record: (connection) => deps.log?.({ ...connection, projectId, source: extra.source }),
    });

  // Sharing a namespace means joining it (setns), which needs root: the per-project identity.
  const networks =
    host.mode === "bwrap" && host.perProjectUid && !host.unavailable
      ? createWorkspaceNetworks({
          host,
          // The listener exists whatever the policy now; each connection is checked against the policy then.
          openEgress: (projectId) =>
            enforceable ? egressListener(projectId, { source: { kind: "workspace", id: projectId } }) : undefined,
        })
      : null;

  return {
    host,
    mode: host.mode,
    network,
    networks,
    diskFull: async (projectId) => (deps.diskBudget ? deps.diskBudget.full(projectId) : null),
    async launch(request) {
      const { projectId, source, onlyHosts, network: wanted, ...options } = request;
      const budget = deps.diskBudget;
      // A project over its disk budget starts commands that cannot grow any file (disk-budget.ts).
      const full = projectId && budget ? await budget.full(projectId) : null;
      const toolchains =
        projectId && deps.toolchains && WITH_TOOLCHAINS.has(source.kind)
          ? await deps.toolchains.forProject(projectId)
          : [];
      const online = projectId !== undefined && wanted !== "none" && (await network(projectId)).policy !== "off";
      let listener: EgressListener | undefined;
      let lease: NetworkLease | undefined;
      let client: EgressClient | undefined;
      if (networks && projectId && wanted !== "none" && !onlyHosts && SHARING.has(source.kind)) {
        lease = await networks.acquire(options.workspaceRoot, projectId);
        client = lease.egress?.client((connection) => deps.log?.({ ...connection, projectId, source }));
      } else if (online) listener = egressListener(projectId, { onlyHosts, source });
      try {
        const command = sandboxCommand(host, {
          ...options,
          toolchains,
          egressSocket: listener?.socketPath,
          ...(lease ? { joinNetwork: lease.path, proxyToken: online ? client?.token : undefined } : {}),
          growthStopped: full !== null,
        });
        const identity = sandboxIdentity(host, options.workspaceRoot);
        const hold =
          projectId && budget && host.mode === "bwrap"
            ? budget.hold(projectId, host.trees?.mainOf(options.workspaceRoot) ?? options.workspaceRoot, identity)
            : undefined;
        const egress = client ?? listener;
        return {
          command,
          denials: () => egress?.denials() ?? [],
          refusals: () => egress?.refusals() ?? [],
          close: async () => {
            hold?.release();
            command.release?.();
            client?.release();
            lease?.release();
            await listener?.close();
          },
          diskFull: async () => (projectId && budget ? budget.full(projectId) : null),
          onDiskFull: (listener) => hold?.onFull(listener),
        };
      } catch (error) {
        client?.release();
        lease?.release();
        await listener?.close();
        throw error;
      }
    },
  };
}
