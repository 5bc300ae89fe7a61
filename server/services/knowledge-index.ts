import { stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/server/db/client";
import { listIndexedFiles, removeIndexedFiles, replaceIndexedFile, searchKnowledge, type Chunk } from "@/server/db/repositories/knowledge";
import type { KnowledgeHit } from "@/server/tools/search-knowledge-base";
import { listWorkspaceFiles } from "@/server/services/file-list";
import { watchWorkspace, type Workspace } from "@/server/workspace";

// The knowledge index of each project's workspace, in Postgres: text files cut into overlapping
// chunks of lines. Every search first brings the index up to date incrementally (files whose size
// or mtime changed are re-read, deleted ones dropped), and a watcher re-indexes in the background
// as files change, so a search rarely waits. Files are listed by ripgrep, so .gitignore is
// honoured. Ranking is Postgres full-text search; the embedded Postgres has no pgvector, so there
// is no embedding ranking to fuse with it.

const CHUNK_LINES = 40;
const OVERLAP_LINES = 10;
const MAX_FILE_BYTES = 1_000_000;
const MAX_FILES = 20_000;
const BACKGROUND_DELAY_MS = 500;

export type KnowledgeIndex = ReturnType<typeof createKnowledgeIndex>;

export function createKnowledgeIndex(options: { db: Db }) {
  const { db } = options;
  const running = new Map<string, Promise<SyncReport>>();
  const watchers = new Map<string, AbortController>();

  /** Brings the project's index up to date; concurrent calls share one pass. */
  function sync(projectId: string, workspace: Workspace): Promise<SyncReport> {
    const current = running.get(projectId);
    if (current) return current.then(() => sync(projectId, workspace));
    const pass = syncOnce(db, projectId, workspace).finally(() => running.delete(projectId));
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
    async search(projectId: string, workspace: Workspace, query: string, limit: number): Promise<KnowledgeHit[]> {
      watch(projectId, workspace);
      await sync(projectId, workspace);
      return searchKnowledge(db, projectId, query, limit);
    },
    dispose() {
      for (const controller of watchers.values()) controller.abort();
      watchers.clear();
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
    const info = await stat(path.join(workspace.root, rel)).catch(() => null);
    if (!info?.isFile() || info.size > MAX_FILE_BYTES) continue;
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
