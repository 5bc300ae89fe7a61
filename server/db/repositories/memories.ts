import type { Db } from "@/server/db/client";
import { anyWordQuery } from "@/server/db/repositories/session-events";

export type MemoryScope = "project" | "user";
export type MemoryOwner = { scope: "project"; projectId: string } | { scope: "user"; userId: string };
/** `agentWritten`: the agent stored it (not a person); `approvedBy`: who approved it (project memory the agent writes asks). */
export type MemoryRow = {
  id: string;
  scope: MemoryScope;
  key: string;
  value: string;
  pinned: boolean;
  createdAt: Date;
  updatedAt: Date;
  agentWritten: boolean;
  approvedBy: { id: string; name: string } | null;
};

const ownerKey = (owner: MemoryOwner) =>
  owner.scope === "project" ? `project:${owner.projectId}` : `user:${owner.userId}`;
const select = {
  id: true,
  scope: true,
  key: true,
  value: true,
  pinned: true,
  createdAt: true,
  updatedAt: true,
  agentWritten: true,
  approvedBy: { select: { id: true, name: true } },
} as const;
type RawRow = { scope: string } & Omit<MemoryRow, "scope" | "agentWritten" | "approvedBy"> & {
    agentWritten?: boolean;
    approvedBy?: { id: string; name: string } | null;
  };
const toRow = (raw: RawRow): MemoryRow => ({
  ...raw,
  scope: raw.scope === "user" ? "user" : "project",
  agentWritten: raw.agentWritten ?? false,
  approvedBy: raw.approvedBy ?? null,
});

/** Who wrote a memory: a person, or the agent (with the person who approved it, when one did). */
export type MemoryAuthor = { createdById: string | null; agentWritten?: boolean; approvedById?: string | null };

export async function storeMemory(
  db: Db,
  owner: MemoryOwner,
  input: { key: string; value: string } & MemoryAuthor,
): Promise<MemoryRow> {
  const marks = { agentWritten: input.agentWritten ?? false, approvedById: input.approvedById ?? null };
  const where = { ownerKey_key: { ownerKey: ownerKey(owner), key: input.key } };
  const raw = await db.memory.upsert({
    where,
    create: {
      scope: owner.scope,
      ownerKey: ownerKey(owner),
      projectId: owner.scope === "project" ? owner.projectId : null,
      userId: owner.scope === "user" ? owner.userId : null,
      key: input.key,
      value: input.value,
      createdById: input.createdById,
      ...marks,
    },
    update: { value: input.value, ...marks },
    select,
  });
  return toRow(raw);
}

export async function retrieveMemory(db: Db, owner: MemoryOwner, key: string): Promise<MemoryRow | null> {
  const raw = await db.memory.findUnique({ where: { ownerKey_key: { ownerKey: ownerKey(owner), key } }, select });
  return raw && toRow(raw);
}

export async function deleteMemory(db: Db, owner: MemoryOwner, key: string): Promise<boolean> {
  const { count } = await db.memory.deleteMany({ where: { ownerKey: ownerKey(owner), key } });
  return count > 0;
}

export async function listMemories(db: Db, owner: MemoryOwner): Promise<MemoryRow[]> {
  return (await db.memory.findMany({ where: { ownerKey: ownerKey(owner) }, select, orderBy: { key: "asc" } })).map(
    toRow,
  );
}

/** Pins or unpins a memory; false when there is no memory with that key. */
export async function setMemoryPinned(db: Db, owner: MemoryOwner, key: string, pinned: boolean): Promise<boolean> {
  const { count } = await db.memory.updateMany({ where: { ownerKey: ownerKey(owner), key }, data: { pinned } });
  return count > 0;
}

/** The memories of these owners, pinned ones first, for the agent's prompt (every turn's start: db.sql). */
export async function listMemoriesOf(db: Db, owners: MemoryOwner[]): Promise<MemoryRow[]> {
  if (!owners.length) return [];
  const rows = await db.sql<RawRow>`
    SELECT m.id, m.scope, m.key, m.value, m.pinned, m."createdAt", m."updatedAt", m."agentWritten",
           CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "approvedBy"
    FROM memory m LEFT JOIN "user" u ON u.id = m."approvedById"
    WHERE m."ownerKey" = ANY(${owners.map(ownerKey)}::text[]) ORDER BY m.pinned DESC, m."updatedAt" DESC`;
  return rows.map(toRow);
}

export type MemoryHit = MemoryRow & { score: number };

// Ranked full-text search (tsvector/ts_rank, the key weighted above the value). ts_rank with
// normalisation 32 is rank/(rank+1): a 0–1 score that `threshold` can filter on.
export async function searchMemories(
  db: Db,
  owners: MemoryOwner[],
  input: { query: string; limit: number; threshold: number },
): Promise<MemoryHit[]> {
  const tsquery = anyWordQuery(input.query);
  if (!tsquery || owners.length === 0) return [];
  const keys = owners.map(ownerKey);
  const rows = await db.$queryRaw<Array<RawRow & { score: number }>>`
    WITH q AS (SELECT to_tsquery('english', ${tsquery}) AS query)
    SELECT m.id, m.scope, m.key, m.value, m.pinned, m."createdAt", m."updatedAt", m."agentWritten",
           CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "approvedBy",
           ts_rank(
             setweight(to_tsvector('english', replace(replace(m.key, '_', ' '), '-', ' ')), 'A') ||
             setweight(to_tsvector('english', m.value), 'B'),
             q.query, 32)::float8 AS score
    FROM memory m LEFT JOIN "user" u ON u.id = m."approvedById", q
    WHERE m."ownerKey" = ANY(${keys})
      AND (setweight(to_tsvector('english', replace(replace(m.key, '_', ' '), '-', ' ')), 'A') ||
           setweight(to_tsvector('english', m.value), 'B')) @@ q.query
    ORDER BY score DESC, m."updatedAt" DESC
    LIMIT ${input.limit}`;
  return rows.filter((r) => r.score >= input.threshold).map((r) => ({ ...toRow(r), score: r.score }));
}
