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
    db.knowledgeChunk.createMany({ data: chunks.map((c) => ({ projectId, path: file.path, ...c })) }),
  ]);
}

export async function removeIndexedFiles(db: Db, projectId: string, paths: string[]) {
  if (paths.length) await db.knowledgeFile.deleteMany({ where: { projectId, path: { in: paths } } });
}

export async function searchKnowledge(db: Db, projectId: string, query: string, limit: number): Promise<KnowledgeRow[]> {
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
