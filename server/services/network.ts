import { EventEmitter } from "node:events";
import type { Db } from "@/server/db/client";
import {
  listEgressConnections,
  pruneEgressConnections,
  recordEgressConnection,
  type EgressConnectionRow,
} from "@/server/db/repositories/egress-connections";
import {
  addAllowedHost,
  getNetworkSettings,
  getProjectTeamInternalHosts,
  saveNetworkSettings,
} from "@/server/db/repositories/network-settings";
import { setTeamInternalHosts } from "@/server/db/repositories/teams";
import { getSetting, setSetting } from "@/server/db/repositories/settings";
import { policyInForce, type NetworkPolicy, type NetworkPolicyKind } from "@/lib/egress-policy";
import type { LoggedConnection, NetworkPolicies } from "@/server/sandbox/sandbox";

// Projects' network policies and their connection log: what the sandbox asks for each
// connection, what the Network tab of the project settings reads, edits and watches live.

const CACHE_MS = 2_000;
const PRUNE_EVERY = 100;

export class NetworkPolicyError extends Error {}

export type ProjectNetwork = ReturnType<typeof createProjectNetwork>;

/** `internalHosts`: the server admin's internal hosts and ranges (TANDEM_INTERNAL_HOSTS), for every project. */
export function createProjectNetwork(db: Db, options: { internalHosts?: readonly string[] } = {}) {
  const cache = new Map<string, { at: number; policy: Promise<NetworkPolicy> }>();
  const live = new EventEmitter().setMaxListeners(0);
  const recorded = new Map<string, number>();

  /** The project's settings with the policy in force: a policy the admin has since ruled out falls back (policyInForce). */
  async function effective(projectId: string): Promise<NetworkPolicy & { permitted: NetworkPolicyKind[] }> {
    const [stored, permitted, team] = await Promise.all([
      getNetworkSettings(db, projectId),
      getSetting(db, "networkPolicies"),
      getProjectTeamInternalHosts(db, projectId),
    ]);
    return {
      ...stored,
      policy: policyInForce(stored.policy, permitted),
      permitted,
      internalHosts: options.internalHosts ?? [],
      teamInternalHosts: team,
    };
  }

  const policies: NetworkPolicies = {
    get(projectId) {
      const hit = cache.get(projectId);
      if (hit && Date.now() - hit.at < CACHE_MS) return hit.policy;
      const policy = effective(projectId).then(({ policy, allowHosts, internalHosts, teamInternalHosts }) => ({
        policy,
        allowHosts,
        internalHosts,
        teamInternalHosts,
      }));
      cache.set(projectId, { at: Date.now(), policy });
      policy.catch(() => cache.delete(projectId));
      return policy;
    },
  };

  return {
    policies,
    /** The policy in force, the allow-list, and which policies the admin permits (for the settings page). */
    settings: (projectId: string) =>
      effective(projectId).then(({ policy, allowHosts, permitted }) => ({ policy, allowHosts, permitted })),
    async save(projectId: string, settings: NetworkPolicy): Promise<NetworkPolicy> {
      const permitted = await getSetting(db, "networkPolicies");
      if (!permitted.includes(settings.policy)) {
        throw new NetworkPolicyError(
          `The ${settings.policy} network policy is not permitted on this server; an admin permits ${permitted.join(", ")}.`,
        );
      }
      cache.delete(projectId);
      return saveNetworkSettings(db, projectId, settings);
    },
    /** The admin's choice of the policies projects may choose; applies to running sandboxes' next connection. */
    async setPermitted(permitted: NetworkPolicyKind[]): Promise<NetworkPolicyKind[]> {
      const unique = [...new Set(permitted)];
      await setSetting(db, "networkPolicies", unique);
      cache.clear();
      return unique;
    },
    /** A team admin's internal hosts for the team's projects; applies to running sandboxes' next connection. */
    async setTeamInternalHosts(teamId: string, entries: string[]): Promise<string[]> {
      const saved = await setTeamInternalHosts(db, teamId, entries);
      cache.clear();
      return saved;
    },
    async allowHost(projectId: string, host: string): Promise<NetworkPolicy> {
      cache.delete(projectId);
      return addAllowedHost(db, projectId, host);
    },
    /** Stores a connection and tells the project's watchers. */
    async log(connection: LoggedConnection): Promise<void> {
      const row = await recordEgressConnection(db, {
        projectId: connection.projectId,
        host: connection.host,
        port: connection.port,
        allowed: connection.allowed,
        reason: connection.reason,
        bytesIn: connection.bytesIn,
        bytesOut: connection.bytesOut,
        sourceKind: connection.source.kind,
        sourceId: connection.source.id,
      });
      live.emit(connection.projectId, row);
      const count = (recorded.get(connection.projectId) ?? 0) + 1;
      recorded.set(connection.projectId, count % PRUNE_EVERY);
      if (count % PRUNE_EVERY === 0) await pruneEgressConnections(db, connection.projectId);
    },
    recent: (projectId: string, limit?: number) => listEgressConnections(db, projectId, limit),
    watch(projectId: string, listener: (row: EgressConnectionRow) => void): () => void {
      live.on(projectId, listener);
      return () => live.off(projectId, listener);
    },
  };
}
