import { projectOfTreeKey } from "@/lib/trees";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Workspace } from "@/server/workspace";
import { watchWorkspace } from "@/server/workspace/watch";
import { LanguageServerHub, type HubState } from "./hub";
import { launchCommand } from "./launch";
import { ProjectLanguage } from "./project-language";
import { LanguageRegistry, type LanguageServerSpec } from "./registry";

/**
 * The language servers of every project this process serves: one per tree and language,
 * started on first need, shared by every viewer and the agent, stopped after `idleMs` without an
 * editor connected or a query, restarted with backoff after a crash.
 */
export interface LanguageServers {
  /**
   * The hub of a tree's server (`key`: lib/trees.ts treeKey, a project's id for its main tree; a
   * session's worktree has servers of its own); the process starts when something first needs it.
   */
  hub(key: string, workspace: Workspace, serverId: string): LanguageServerHub;
  /** The queries the agent's tools make, over every language of a tree (`key`: lib/trees.ts treeKey; a project's id for its main tree). */
  forProject(key: string, workspace: Workspace): ProjectLanguage;
  /** The tree's servers as its project's configuration has them now: the built-in ones and the configured ones. */
  registry(key: string, workspace: Workspace): Promise<LanguageRegistry>;
  status(key: string): { server: string; state: HubState; restarts: number; clients: number }[];
  /** A tree is gone (a session's worktree discarded): its servers stop and its files are no longer watched. */
  close(key: string): Promise<void>;
  /** The host is going down: servers that exit from now on stay down (see LanguageServerHub.retire). */
  shuttingDown(): void;
  dispose(): Promise<void>;
}

export type LanguageServersOptions = {
  sandbox: Sandbox;
  /** Minutes of quiet before a server with no editor attached is stopped. */
  idleMs?: number;
  /** Memory limit of one server (Node's old space; tsserver's own limit). */
  memoryMb?: number;
  log?(line: string): void;
  /** Tests shorten the restart backoff. */
  baseBackoffMs?: number;
  /**
   * The servers a project's configuration adds (its settings, the server admin's list), asked
   * before each query; a changed one is restarted with its new command.
   */
  plugins?(projectId: string): Promise<readonly LanguageServerSpec[]>;
};

type ProjectEntry = {
  workspace: Workspace;
  hubs: Map<string, LanguageServerHub>;
  watching: AbortController;
  queries: ProjectLanguage;
  registry: LanguageRegistry;
  /** The configured servers the registry was built from, as JSON. */
  pluginsKey: string;
};

export function createLanguageServers(options: LanguageServersOptions): LanguageServers {
  const idleMs = options.idleMs ?? 10 * 60_000;
  const projects = new Map<string, ProjectEntry>();
  let retiring = false;

  function project(key: string, workspace: Workspace): ProjectEntry {
    let entry = projects.get(key);
    if (entry && entry.workspace.root === workspace.root) return entry;
    const watching = new AbortController();
    const hubs = new Map<string, LanguageServerHub>();
    const created: ProjectEntry = {
      workspace,
      hubs,
      watching,
      queries: undefined as unknown as ProjectLanguage,
      registry: new LanguageRegistry(),
      pluginsKey: "[]",
    };
    created.queries = new ProjectLanguage(
      workspace,
      (serverId) => hubOf(created, serverId),
      () => registryOf(created, key),
    );
    entry = created;
    projects.set(key, entry);
    void follow(entry);
    return entry;
  }

  /** The tree's registry with its project's configured servers as they are now; servers whose spec changed stop. */
  async function registryOf(entry: ProjectEntry, key: string): Promise<LanguageRegistry> {
    if (!options.plugins) return entry.registry;
    const plugins = await options.plugins(projectOfTreeKey(key));
    const pluginsKey = JSON.stringify(plugins);
    if (pluginsKey === entry.pluginsKey) return entry.registry;
    const next = new LanguageRegistry(plugins);
    for (const [id, hub] of entry.hubs) {
      if (JSON.stringify(next.spec(id)) === JSON.stringify(hub.spec)) continue;
      entry.hubs.delete(id);
      void hub.stop();
    }
    entry.registry = next;
    entry.pluginsKey = pluginsKey;
    return next;
  }

  // One subscription to the workspace's change stream per project feeds all of its servers, in batches.
  async function follow(entry: ProjectEntry): Promise<void> {
    let batch: Parameters<LanguageServerHub["filesChanged"]>[0][number][] = [];
    // biome-ignore lint/correctness/noUnusedVariables: read by `timer ??=`, which starts one flush per batch
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      const changes = batch;
      batch = [];
      timer = undefined;
      for (const hub of entry.hubs.values()) void hub.filesChanged(changes);
      void entry.queries.filesChanged(changes);
    };
    try {
      for await (const change of watchWorkspace(entry.workspace.root, { signal: entry.watching.signal })) {
        batch.push(change);
        timer ??= setTimeout(flush, 20);
      }
    } catch (error) {
      options.log?.(`language: watching ${entry.workspace.root} stopped: ${String(error)}`);
    }
  }

  function hubOf(entry: ProjectEntry, serverId: string): LanguageServerHub {
    let hub = entry.hubs.get(serverId);
    if (hub) return hub;
    const spec = entry.registry.spec(serverId);
    if (!spec)
      throw new Error(
        `No language server is registered as '${serverId}'. Known: ${entry.registry.specs.map((s) => s.id).join(", ")}.`,
      );
    hub = new LanguageServerHub({
      spec,
      workspace: entry.workspace,
      launch: () =>
        launchCommand({
          spec,
          workspaceRoot: entry.workspace.root,
          sandbox: options.sandbox,
          memoryMb: options.memoryMb ?? 1024,
        }),
      log: options.log,
      baseBackoffMs: options.baseBackoffMs,
    });
    if (retiring) hub.retire();
    entry.hubs.set(serverId, hub);
    return hub;
  }

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const entry of projects.values()) {
        for (const [id, hub] of entry.hubs) {
          if (hub.clientCount > 0 || now - hub.lastActivity < idleMs) continue;
          entry.hubs.delete(id);
          void hub.stop();
        }
      }
    },
    Math.min(60_000, Math.max(1_000, idleMs / 4)),
  );
  sweep.unref();

  return {
    hub: (key, workspace, serverId) => hubOf(project(key, workspace), serverId),
    forProject: (key, workspace) => project(key, workspace).queries,
    registry: (key, workspace) => registryOf(project(key, workspace), key),
    status(key) {
      const entry = projects.get(key);
      return [...(entry?.hubs.values() ?? [])].map((hub) => ({
        server: hub.spec.id,
        state: hub.state,
        restarts: hub.restarts,
        clients: hub.clientCount,
      }));
    },
    async close(key) {
      const entry = projects.get(key);
      if (!entry) return;
      projects.delete(key);
      entry.watching.abort();
      await Promise.all([...entry.hubs.values()].map((hub) => hub.stop()));
    },
    shuttingDown() {
      retiring = true;
      for (const entry of projects.values()) for (const hub of entry.hubs.values()) hub.retire();
    },
    async dispose() {
      clearInterval(sweep);
      const all = [...projects.values()];
      projects.clear();
      await Promise.all(
        all.map(async (entry) => {
          entry.watching.abort();
          await Promise.all([...entry.hubs.values()].map((hub) => hub.stop()));
        }),
      );
    },
  };
}
