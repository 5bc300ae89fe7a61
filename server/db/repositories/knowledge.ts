import { createHash } from "node:crypto";
import type { Db } from "@/server/db/client";
import { anyWordQuery } from "@/server/db/repositories/session-events";

// The knowledge index: one row per indexed file, its chunks beside it. Ranked with full-text
// search computed per query (path words weighted above the text), like memory and session search.

export type IndexedFile = { path: string; size: number; mtimeMs: number };
export type Chunk = { startLine: number; endLine: number; text: string };
export type KnowledgeRow = { path: string; startLine: number; endLine: number; text: string; score: number };

export async function listIndexedFiles(db: Db, projectId: string): Promise<IndexedFile[]> {
  return db.knowledgeFile.findMany({ where: { projectId }, select: { path: true, size: true, mtimeMs: true } });
}

/** Replaces a file's chunks (the file row's delete cascades to the old ones). */
export async function replaceIndexedFile(db: Db, projectId: string, file: IndexedFile, chunks: Chunk[]) {
  await db.$transaction([
    db.knowledgeFile.deleteMany({ where: { projectId, path: file.path } }),
    db.knowledgeFile.create({ data: { projectId, ...file } }),
    db.knowledgeChunk.createMany({
      data: chunks.map((c) => ({ projectId, path: file.path, ...c, hash: passageHash(c.text) })),
    }),
  ]);
}

export async function removeIndexedFiles(db: Db, projectId: string, paths: string[]) {
  if (paths.length) await db.knowledgeFile.deleteMany({ where: { projectId, path: { in: paths } } });
}

export async function searchKnowledge(
  db: Db,
  projectId: string,
  query: string,
  limit: number,
): Promise<KnowledgeRow[]> {
  const tsquery = anyWordQuery(query);
  if (!tsquery) return [];
  return db.$queryRaw<KnowledgeRow[]>`
    WITH q AS (SELECT to_tsquery('english', ${tsquery}) AS query),
    ranked AS (
      SELECT c.path, c."startLine", c."endLine", c.text,
             setweight(to_tsvector('english', regexp_replace(c.path, '[/._-]+', ' ', 'g')), 'A') ||
             setweight(to_tsvector('english', c.text), 'B') AS doc
      FROM knowledge_chunk c
      WHERE c."projectId" = ${projectId}
    )
    SELECT r.path, r."startLine", r."endLine", r.text, ts_rank_cd(r.doc, q.query, 32)::float8 AS score
    FROM ranked r, q
    WHERE r.doc @@ q.query
    ORDER BY score DESC, r.path, r."startLine"
    LIMIT ${limit}`;
}

/** What an embedding is keyed by: the passage's text, so moved or unchanged passages keep theirs. */
export function passageHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

// Embeddings (semantic ranking): one row per distinct passage text and embedding model.

export type EmbeddingRow = { hash: string; vector: number[] };

/** Distinct passages of the project that have no embedding under `model` yet. */
export async function passagesWithoutEmbedding(
  db: Db,
  projectId: string,
  model: string,
  limit: number,
): Promise<{ hash: string; text: string }[]> {
  return db.$queryRaw<{ hash: string; text: string }[]>`
    SELECT DISTINCT ON (c.hash) c.hash, c.text
    FROM knowledge_chunk c
    WHERE c."projectId" = ${projectId}
      AND NOT EXISTS (SELECT 1 FROM knowledge_embedding e WHERE e."projectId" = c."projectId" AND e.model = ${model} AND e.hash = c.hash)
    ORDER BY c.hash
    LIMIT ${limit}`;
}

export async function embeddingCounts(
  db: Db,
  projectId: string,
  model: string,
): Promise<{ embedded: number; pending: number }> {
  const [row] = await db.$queryRaw<{ embedded: number; pending: number }[]>`
    SELECT count(DISTINCT c.hash) FILTER (WHERE e.hash IS NOT NULL)::int AS embedded,
           count(DISTINCT c.hash) FILTER (WHERE e.hash IS NULL)::int AS pending
    FROM knowledge_chunk c
    LEFT JOIN knowledge_embedding e ON e."projectId" = c."projectId" AND e.model = ${model} AND e.hash = c.hash
    WHERE c."projectId" = ${projectId}`;
  return row ?? { embedded: 0, pending: 0 };
}

export async function saveEmbeddings(db: Db, projectId: string, model: string, rows: EmbeddingRow[]) {
  await db.knowledgeEmbedding.createMany({
    data: rows.map((r) => ({ projectId, model, hash: r.hash, vector: r.vector })),
    skipDuplicates: true,
  });
}

/** Drops embeddings whose passage left the index (any model); returns how many went. */
export async function removeUnusedEmbeddings(db: Db, projectId: string): Promise<number> {
  return db.$executeRaw`
    DELETE FROM knowledge_embedding e
    WHERE e."projectId" = ${projectId}
      AND NOT EXISTS (SELECT 1 FROM knowledge_chunk c WHERE c."projectId" = e."projectId" AND c.hash = e.hash)`;
}

export async function listEmbeddings(db: Db, projectId: string, model: string): Promise<EmbeddingRow[]> {
  return db.knowledgeEmbedding.findMany({ where: { projectId, model }, select: { hash: true, vector: true } });
}

/** The passages with these texts, in the order of `hashes` (a text indexed twice comes twice). */
export async function passagesByHash(
  db: Db,
  projectId: string,
  hashes: string[],
): Promise<(Omit<KnowledgeRow, "score"> & { hash: string })[]> {
  if (!hashes.length) return [];
  const rows = await db.knowledgeChunk.findMany({
    where: { projectId, hash: { in: hashes } },
    select: { path: true, startLine: true, endLine: true, text: true, hash: true },
    orderBy: [{ path: "asc" }, { startLine: "asc" }],
  });
  const order = new Map(hashes.map((h, i) => [h, i]));
  return rows.sort((a, b) => order.get(a.hash)! - order.get(b.hash)!);
}

/** Whether pgvector is installed, installing it when the server offers it and we may. */
export async function ensurePgvector(db: Db): Promise<boolean> {
  const installed = async () =>
    (await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'vector'`)[0]!.n >
    0;
  if (await installed()) return true;
  const [available] = await db.$queryRaw<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`;
  if (!available?.n) return false;
  await db.$executeRaw`CREATE EXTENSION IF NOT EXISTS vector`.catch(() => 0);
  return installed();
}

/** Nearest passages by cosine distance, computed by pgvector over the stored float arrays. */
export async function nearestByPgvector(
  db: Db,
  projectId: string,
  model: string,
  vector: number[],
  limit: number,
): Promise<{ hash: string; distance: number }[]> {
  const literal = `[${vector.join(",")}]`;
  return db.$queryRaw<{ hash: string; distance: number }[]>`
    SELECT e.hash, (e.vector::vector <=> ${literal}::vector)::float8 AS distance
    FROM knowledge_embedding e
    WHERE e."projectId" = ${projectId} AND e.model = ${model} AND cardinality(e.vector) = ${vector.length}
    ORDER BY distance
    LIMIT ${limit}`;
}
