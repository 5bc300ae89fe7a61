import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { DEFAULT_ALLOW_HOSTS, networkPolicyKind, type NetworkPolicy } from "@/lib/egress-policy";

// A project's network policy as stored; projects without a row have the default.

export const DEFAULT_NETWORK_POLICY: NetworkPolicy = { policy: "allow-list", allowHosts: DEFAULT_ALLOW_HOSTS };

export async function getNetworkSettings(db: Db, projectId: string): Promise<NetworkPolicy> {
  const row = await db.projectNetworkSettings.findUnique({
    where: { projectId },
    select: { policy: true, allowHosts: true },
  });
  if (!row) return { ...DEFAULT_NETWORK_POLICY, allowHosts: [...DEFAULT_ALLOW_HOSTS] };
  const policy = networkPolicyKind.safeParse(row.policy);
  return { policy: policy.success ? policy.data : "off", allowHosts: row.allowHosts };
}

export async function saveNetworkSettings(db: Db, projectId: string, settings: NetworkPolicy): Promise<NetworkPolicy> {
  const saved = await storeNetworkSettings(db, projectId, settings);
  await recordAudit(db, "network.policy_changed", { projectId, detail: saved });
  return saved;
}

async function storeNetworkSettings(db: Db, projectId: string, settings: NetworkPolicy): Promise<NetworkPolicy> {
  const data = { policy: settings.policy, allowHosts: [...new Set(settings.allowHosts)] };
  const row = await db.projectNetworkSettings.upsert({
    where: { projectId },
    create: { projectId, ...data },
    update: data,
    select: { policy: true, allowHosts: true },
  });
  return { policy: networkPolicyKind.parse(row.policy), allowHosts: row.allowHosts };
}

/** Adds one host to the project's list (keeping the rest of its settings); returns the new settings. */
export async function addAllowedHost(db: Db, projectId: string, host: string): Promise<NetworkPolicy> {
  const { settings, added } = await db.$transaction(async (tx) => {
    const current = await getNetworkSettings(tx as Db, projectId);
    if (current.allowHosts.includes(host)) return { settings: current, added: false };
    const next = { ...current, allowHosts: [...current.allowHosts, host] };
    return { settings: await storeNetworkSettings(tx as Db, projectId, next), added: true };
  });
  if (added) await recordAudit(db, "network.host_allowed", { projectId, target: host });
  return settings;
}

/** The internal hosts and ranges the project's team allows (the server's own list is added by the caller). */
export async function getProjectTeamInternalHosts(db: Db, projectId: string): Promise<string[]> {
  const row = await db.project.findUnique({
    where: { id: projectId },
    select: { team: { select: { internalHosts: true } } },
  });
  return row?.team.internalHosts ?? [];
}
