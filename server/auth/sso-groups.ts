import type { SsoConfig } from "@/lib/sso";
import type { Db } from "@/server/db/client";
import { roleRank, syncGroupTeams, type TeamRole } from "@/server/db/repositories/teams";
import { setInstanceRole } from "@/server/db/repositories/users";

// The provider's groups decide, at every sign-on, the person's memberships of the teams the admin
// mapped (TANDEM_OIDC_TEAM_GROUPS) and, when admin groups are set, whether they are an admin of the
// instance. Teams and roles nobody mapped stay as people set them in Tandem.

/** The role each mapped team gets from these groups: the highest any of them grants. */
export function teamGrants(sso: SsoConfig, groups: readonly string[]): Map<string, TeamRole> {
  const grants = new Map<string, TeamRole>();
  for (const { group, team, role } of sso.teamGroups) {
    if (!groups.includes(group)) continue;
    const held = grants.get(team);
    if (!held || roleRank(role) > roleRank(held)) grants.set(team, role);
  }
  return grants;
}

/** Applies the groups to the person; true when a membership or their instance role changed. */
export async function applySsoGroups(
  db: Db,
  sso: SsoConfig,
  userId: string,
  groups: readonly string[],
): Promise<boolean> {
  const managed = [...new Set(sso.teamGroups.map((mapping) => mapping.team))];
  let changed = await syncGroupTeams(db, userId, managed, teamGrants(sso, groups));
  if (sso.adminGroups.length > 0) {
    const admin = sso.adminGroups.some((group) => groups.includes(group));
    changed = (await setInstanceRole(db, userId, admin ? "admin" : "user")) || changed;
  }
  return changed;
}
