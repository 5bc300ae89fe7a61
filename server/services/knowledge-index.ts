import type { Db } from "@/server/db/client";
import {
  listIndexedFiles,
  removeIndexedFiles,
  replaceIndexedFile,
  searchKnowledge,
  type Chunk,
} from "@/server/db/repositories/knowledge";
import type { KnowledgeHit, KnowledgeResult } from "@/server/tools/search-knowledge-base";
import type { KnowledgeEmbeddings } from "@/server/services/knowledge-embeddings";
import { listWorkspaceFiles } from "@/server/workspace/file-list";
import { watchWorkspace, type Workspace } from "@/server/workspace";

// The knowledge index of each project's workspace, in Postgres: text files cut into overlapping
// chunks of lines. Every search first brings the index up to date incrementally (files whose size
// or mtime changed are re-read, deleted ones dropped), and a watcher re-indexes in the background
// as files change, so a search rarely waits. Files are listed by ripgrep, so .gitignore is
// honoured. Ranking is Postgres full-text search; when an embedding model is configured, the
// passages nearest in meaning (knowledge-embeddings.ts, embedded in the background after each sync)
// are fused with it by reciprocal rank fusion. When the embeddings cannot be used, full-text
// ranking answers alone and the result says why.

const CHUNK_LINES = 40;
const OVERLAP_LINES = 10;
const MAX_FILE_BYTES = 1_000_000;
const MAX_FILES = 20_000;
const BACKGROUND_DELAY_MS = 500;
/** How many passages each ranking contributes to the fusion. */
const CANDIDATES = 50;
/**
 * Semantic neighbours below this share of the best one's similarity are left out: every passage has
 * some similarity to any query, and without a floor unrelated passages would fill the results.
 */
const SEMANTIC_FLOOR = 0.5;
/** The usual RRF constant: damps the weight of the very first ranks so neither list dominates. */
const RRF_K = 60;

export type KnowledgeIndex = ReturnType<typeof createKnowledgeIndex>;

export function createKnowledgeIndex(options: { db: Db; embeddings?: KnowledgeEmbeddings }) {
  const { db, embeddings } = options;
  const running = new Map<string, Promise<SyncReport>>();
  const watchers = new Map<string, AbortController>();

  /** Brings the project's index up to date; concurrent calls share one pass. */
  function sync(projectId: string, workspace: Workspace): Promise<SyncReport> {
    const current = running.get(projectId);
    if (current) return current.then(() => sync(projectId, workspace));
    const pass = syncOnce(db, projectId, workspace).finally(() => running.delete(projectId));
    void pass
      .then((report) =>
        report.indexed || report.removed || embeddings?.due(projectId) ? embeddings?.refresh(projectId) : undefined,
      )
      .catch(() => {});
    running.set(projectId, pass);
    return pass;
  }

  function watch(projectId: string, workspace: Workspace) {
    if (watchers.has(projectId)) return;
    const controller = new AbortController();
    watchers.set(projectId, controller);
    void (async () => {
      let timer: NodeJS.Timeout | undefined;
      for await (const _change of watchWorkspace(workspace.root, { signal: controller.signal })) {
        clearTimeout(timer);
        timer = setTimeout(() => void sync(projectId, workspace).catch(() => {}), BACKGROUND_DELAY_MS);
        timer.unref();
      }
      clearTimeout(timer);
    })().catch(() => watchers.delete(projectId));
  }

  return {
    sync,
    async search(
      projectId: string,
      workspace: Workspace,
      query: string,
      limit: number,
      signal?: AbortSignal,
    ): Promise<KnowledgeResult> {
      watch(projectId, workspace);
      await sync(projectId, workspace);
      if (!embeddings) return { hits: await searchKnowledge(db, projectId, query, limit), ranking: "full-text" };
      const [lexical, semantic] = await Promise.all([
        searchKnowledge(db, projectId, query, CANDIDATES),
        embeddings.nearest(projectId, query, CANDIDATES, signal).then(
          (rows) => ({ rows }),
          (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
        ),
      ]);
      if ("error" in semantic) {
        return {
          hits: lexical.slice(0, limit),
          ranking: "full-text",
          note: `Semantic ranking (${embeddings.model}) is unavailable: ${semantic.error}. Passages are ranked by full-text search alone.`,
        };
      }
      const status = await embeddings.status(projectId);
      const note = status.error
        ? `Embedding passages with ${status.model} failed (${status.error}); ${status.pending} passage(s) are ranked by full-text search alone.`
        : status.pending
          ? `${status.pending} passage(s) are still being embedded; until then they are ranked by full-text search alone.`
          : undefined;
      const best = semantic.rows[0]?.score ?? 0;
      const near = semantic.rows.filter((row) => row.score > 0 && row.score >= best * SEMANTIC_FLOOR);
      return { hits: fuse([lexical, near], limit), ranking: "hybrid", ...(note ? { note } : {}) };
    },
    /** Where semantic ranking stands for the project (model, backend, counts, last error); null without an embedding model. */
    semanticStatus: (projectId: string) => embeddings?.status(projectId) ?? Promise.resolve(null),
    /** Resolves once the project's passages are indexed and the background embedding pass is done. */
    async settled(projectId: string, workspace: Workspace) {
      await sync(projectId, workspace);
      await embeddings?.refresh(projectId);
    },
    async dispose() {
      for (const controller of watchers.values()) controller.abort();
      watchers.clear();
      await embeddings?.dispose();
    },
  };
}

export type SyncReport = { indexed: number; removed: number; unchanged: number };

async function syncOnce(db: Db, projectId: string, workspace: Workspace): Promise<SyncReport> {
  const listed = await listWorkspaceFiles(workspace.root, { limit: MAX_FILES, exclude: [".tandem", "node_modules"] });
  const known = new Map((await listIndexedFiles(db, projectId)).map((f) => [f.path, f]));
  const seen = new Set<string>();
  let indexed = 0;
  let unchanged = 0;
  for (const rel of listed.files) {
    const info = await workspace.stat(rel).catch(() => null);
    if (info?.type !== "file" || info.size > MAX_FILE_BYTES) continue;
    seen.add(rel);
    const before = known.get(rel);
    if (before && before.size === info.size && before.mtimeMs === info.mtimeMs) {
      unchanged += 1;
      continue;
    }
    const file = await workspace.read(rel).catch(() => null);
    const chunks = file?.kind === "text" ? chunk(file.content) : [];
    await replaceIndexedFile(db, projectId, { path: rel, size: info.size, mtimeMs: info.mtimeMs }, chunks);
    indexed += 1;
  }
  const gone = [...known.keys()].filter((p) => !seen.has(p));
  await removeIndexedFiles(db, projectId, gone);
  return { indexed, removed: gone.length, unchanged };
}

/** Overlapping windows of lines, so a passage cut by one boundary is whole in the next chunk. */
export function chunk(content: string): Chunk[] {
  const lines = content.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const chunks: Chunk[] = [];
  for (let start = 0; start < lines.length; start += CHUNK_LINES - OVERLAP_LINES) {
    const slice = lines.slice(start, start + CHUNK_LINES);
    const text = slice.join("\n").replace(/\u0000/g, "");
    if (text.trim()) chunks.push({ startLine: start + 1, endLine: start + slice.length, text });
    if (start + CHUNK_LINES >= lines.length) break;
  }
  return chunks;
}

/**
 * Reciprocal rank fusion: each passage scores the sum of 1/(k + rank) over the rankings it appears
 * in. Ranks, not raw scores, are fused, because full-text and cosine scores are not on one scale.
 */
export function fuse(rankings: KnowledgeHit[][], limit: number): KnowledgeHit[] {
  const fused = new Map<string, KnowledgeHit>();
  for (const ranking of rankings) {
    ranking.forEach((hit, rank) => {
      const key = `${hit.path}:${hit.startLine}`;
      const score = 1 / (RRF_K + rank + 1);
      const seen = fused.get(key);
      fused.set(key, seen ? { ...seen, score: seen.score + score } : { ...hit, score });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine)
    .slice(0, limit);
}
