import type { Db } from "@/server/db/client";

// Running turns as jobs with a lease (model TurnJob; the protocol is in server/cluster/turn-jobs.ts).
// Lease times are the database's clock, never an instance's, so instances whose clocks disagree
// still agree on which lease has lapsed. Columns are `timestamp` holding UTC, hence AT TIME ZONE.
// Every turn claims and releases its job: the statements go straight to the pool (db.sql).

export type LapsedJob = { sessionId: string; userId: string };

/** Takes the session's job: a new one, one this instance holds, or one whose lease has lapsed. */
export async function claimTurnJob(
  db: Db,
  input: { sessionId: string; userId: string; ownerId: string; leaseMs: number },
): Promise<boolean> {
  const rows = await db.sql<{ sessionId: string }>`
    INSERT INTO turn_job ("sessionId", "userId", "ownerId", "leaseUntil")
    VALUES (${input.sessionId}, ${input.userId}, ${input.ownerId}, (now() AT TIME ZONE 'UTC') + make_interval(secs => ${input.leaseMs / 1000}))
    ON CONFLICT ("sessionId") DO UPDATE
      SET "userId" = EXCLUDED."userId", "ownerId" = EXCLUDED."ownerId", "leaseUntil" = EXCLUDED."leaseUntil", "cancelRequested" = false
      WHERE turn_job."ownerId" = EXCLUDED."ownerId" OR turn_job."leaseUntil" < (now() AT TIME ZONE 'UTC')
    RETURNING "sessionId"`;
  return rows.length === 1;
}

/** Renews this instance's leases; returns the ones it still holds, and whether a cancel was asked for. */
export async function renewTurnJobs(db: Db, ownerId: string, sessionIds: string[], leaseMs: number) {
  if (!sessionIds.length) return [];
  return db.sql<{ sessionId: string; cancelRequested: boolean }>`
    UPDATE turn_job SET "leaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => ${leaseMs / 1000})
    WHERE "ownerId" = ${ownerId} AND "sessionId" = ANY(${sessionIds})
    RETURNING "sessionId", "cancelRequested"`;
}

export async function releaseTurnJob(db: Db, sessionId: string, ownerId: string) {
  await db.sql.run`DELETE FROM turn_job WHERE "sessionId" = ${sessionId} AND "ownerId" = ${ownerId}`;
}

export async function lapseTurnJob(db: Db, sessionId: string, ownerId: string) {
  await db.sql.run`
    UPDATE turn_job SET "leaseUntil" = (now() AT TIME ZONE 'UTC') - interval '1 millisecond'
    WHERE "sessionId" = ${sessionId} AND "ownerId" = ${ownerId}`;
}

/**
 * Moves up to `limit` lapsed jobs to this instance. SKIP LOCKED lets several instances look at
 * once: each lapsed job goes to exactly one of them.
 */
export async function takeOverLapsedTurnJobs(
  db: Db,
  ownerId: string,
  leaseMs: number,
  limit: number,
): Promise<LapsedJob[]> {
  return db.sql<LapsedJob>`
    WITH lapsed AS (
      SELECT "sessionId" FROM turn_job
      WHERE "leaseUntil" < (now() AT TIME ZONE 'UTC')
      ORDER BY "leaseUntil"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE turn_job t
    SET "ownerId" = ${ownerId}, "leaseUntil" = (now() AT TIME ZONE 'UTC') + make_interval(secs => ${leaseMs / 1000}), "takeovers" = t."takeovers" + 1
    FROM lapsed WHERE t."sessionId" = lapsed."sessionId"
    RETURNING t."sessionId", t."userId"`;
}

/** Whether some instance holds a live lease on the session's turn. */
export async function turnJobHeld(db: Db, sessionId: string): Promise<boolean> {
  const rows = await db.sql<{ held: boolean }>`
    SELECT "leaseUntil" >= (now() AT TIME ZONE 'UTC') AS held FROM turn_job WHERE "sessionId" = ${sessionId}`;
  return rows[0]?.held ?? false;
}

/** Asks the instance running the turn to stop it; false when no live job exists. */
export async function requestTurnCancel(db: Db, sessionId: string): Promise<boolean> {
  const changed = await db.sql.run`
    UPDATE turn_job SET "cancelRequested" = true
    WHERE "sessionId" = ${sessionId} AND "leaseUntil" >= (now() AT TIME ZONE 'UTC')`;
  return changed === 1;
}

/** Sessions with a job row (live or lapsed). */
export async function sessionsWithTurnJobs(db: Db, sessionIds: string[]): Promise<Set<string>> {
  const rows = await db.turnJob.findMany({ where: { sessionId: { in: sessionIds } }, select: { sessionId: true } });
  return new Set(rows.map((r) => r.sessionId));
}

/** One instance alone on the database: every job left belongs to a process that is gone. */
export async function clearTurnJobs(db: Db) {
  await db.turnJob.deleteMany({});
}
