import type { Db } from "@/server/db/client";

// The connection log of the egress proxy. Bounded: each project keeps its newest rows only.

export const KEPT_PER_PROJECT = 2000;

export type EgressConnectionRow = {
  id: string;
  host: string;
  port: number;
  allowed: boolean;
  reason: string | null;
  bytesIn: number;
  bytesOut: number;
  sourceKind: string;
  sourceId: string;
  createdAt: Date;
};

const select = {
  id: true,
  host: true,
  port: true,
  allowed: true,
  reason: true,
  bytesIn: true,
  bytesOut: true,
  sourceKind: true,
  sourceId: true,
  createdAt: true,
} as const;

type Stored = Omit<EgressConnectionRow, "bytesIn" | "bytesOut"> & { bytesIn: bigint; bytesOut: bigint };
const toRow = (r: Stored): EgressConnectionRow => ({ ...r, bytesIn: Number(r.bytesIn), bytesOut: Number(r.bytesOut) });

export async function recordEgressConnection(
  db: Db,
  entry: {
    projectId: string;
    host: string;
    port: number;
    allowed: boolean;
    reason: string | null;
    bytesIn: number;
    bytesOut: number;
    sourceKind: string;
    sourceId: string;
  },
): Promise<EgressConnectionRow> {
  const row = await db.egressConnection.create({
    data: {
      ...entry,
      host: entry.host.slice(0, 255),
      sourceId: entry.sourceId.slice(0, 200),
      bytesIn: BigInt(entry.bytesIn),
      bytesOut: BigInt(entry.bytesOut),
    },
    select,
  });
  return toRow(row);
}

export async function listEgressConnections(db: Db, projectId: string, limit = 200): Promise<EgressConnectionRow[]> {
  const rows = await db.egressConnection.findMany({
    where: { projectId },
    orderBy: { createdAt: "desc" },
    take: limit,
    select,
  });
  return rows.map(toRow);
}

/** Deletes the project's rows beyond the newest `keep`. */
export async function pruneEgressConnections(db: Db, projectId: string, keep = KEPT_PER_PROJECT): Promise<number> {
  const cutoff = await db.egressConnection.findFirst({
    where: { projectId },
    orderBy: { createdAt: "desc" },
    skip: keep,
    select: { createdAt: true },
  });
  if (!cutoff) return 0;
  const { count } = await db.egressConnection.deleteMany({
    where: { projectId, createdAt: { lte: cutoff.createdAt } },
  });
  return count;
}
