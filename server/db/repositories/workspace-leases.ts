import type { Db } from "@/server/db/client";

// Which instance holds a project's live resources (model WorkspaceLease; the protocol is in
// server/cluster/workspace-leases.ts). As with turn jobs, lease times are the database's clock,
// never an instance's; columns are `timestamp` holding UTC, hence AT TIME ZONE.

export type WorkspaceHolder = { instanceId: string; instanceUrl: string };

/**
 * Takes the project's lease when it is free, lapsed or already this instance's (renewing it), and
 * answers who holds it afterwards: this instance, or the live one that kept it.
 */
export async function claimWorkspaceLease(
  db: Db,
  input: { projectId: string; instanceId: string; instanceUrl: string; leaseMs: number },
): Promise<WorkspaceHolder | null> {
  const taken = await db.$queryRaw<WorkspaceHolder[]>`
    INSERT INTO workspace_lease ("projectId", "instanceId", "instanceUrl", "leaseUntil")
    VALUES (${input.projectId}, ${input.instanceId}, ${input.instanceUrl}, (now() AT TIME ZONE 'UTC') + make_interval(secs => ${input.leaseMs / 1000}))
    ON CONFLICT ("projectId") DO UPDATE
      SET "instanceId" = EXCLUDED."instanceId", "instanceUrl" = EXCLUDED."instanceUrl", "leaseUntil" = EXCLUDED."leaseUntil", "renewedAt" = now() AT TIME ZONE 'UTC'
      WHERE workspace_lease."instanceId" = EXCLUDED."instanceId" OR workspace_lease."leaseUntil" < (now() AT TIME ZONE 'UTC')
    RETURNING "instanceId", "instanceUrl"`;
  if (taken[0]) return taken[0];
  // Another live instance holds it; null only if the row went away in between (its project was deleted).
  const held = await db.$queryRaw<WorkspaceHolder[]>`
    SELECT "instanceId", "instanceUrl" FROM workspace_lease WHERE "projectId" = ${input.projectId}`;
  return held[0] ?? null;
}

/** Renews every lease of this instance; returns the projects it still holds. */
export async function renewWorkspaceLeases(db: Db, instanceId: string, leaseMs: number): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ projectId: string }>>`
    UPDATE workspace_lease SET "leaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => ${leaseMs / 1000}), "renewedAt" = now() AT TIME ZONE 'UTC'
    WHERE "instanceId" = ${instanceId}
    RETURNING "projectId"`;
  return rows.map((row) => row.projectId);
}

/** An instance shutting down: its projects go to the next instance that needs them, at once. */
export async function releaseWorkspaceLeases(db: Db, instanceId: string) {
  await db.workspaceLease.deleteMany({ where: { instanceId } });
}

/** The holder of the project's lease, lapsed or not (tests and diagnostics). */
export async function workspaceLeaseOf(db: Db, projectId: string) {
  return db.workspaceLease.findUnique({
    where: { projectId },
    select: { instanceId: true, instanceUrl: true, leaseUntil: true },
  });
}
