import path from "node:path";
import type { ResolvedPath, Workspace } from "@/server/workspace";

// Predictive reads: what the agent is likely to read next (the relative imports of a file it just
// read, the files a diagnostic names) is loaded in the background while the model thinks, through
// the workspace like any read. A later read takes the bytes only if the file still has the size
// and modification time it had before it was loaded; anything else is a normal read. Per session,
// bounded in files and bytes.

const MAX_FILES = 64;
const MAX_BYTES = 8 * 1024 * 1024;
const MAX_FILE_BYTES = 512 * 1024;
const SOURCE = /\.(m|c)?(t|j)sx?$|\.py$/;
const EXTENSIONS = [".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", ".cts", ".cjs"];

type Entry = { bytes: Buffer; mtimeMs: number };

export type PrefetchStats = { prefetched: number; hits: number; misses: number };

export interface Prefetcher {
  /** Starts loading these workspace paths (those not loaded yet, that exist and are small files). */
  hint(workspace: Workspace, paths: readonly string[]): void;
  /** The bytes of a loaded file, if it is unchanged since; null: read it. */
  take(workspace: Workspace, resolved: ResolvedPath): Promise<Buffer | null>;
  stats(): PrefetchStats;
}

export function createPrefetcher(): Prefetcher {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<void>>();
  let bytes = 0;
  const counts: PrefetchStats = { prefetched: 0, hits: 0, misses: 0 };

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry) bytes -= entry.bytes.length;
    entries.delete(key);
  };

  function keep(key: string, read: Buffer, mtimeMs: number) {
    // Oldest out first (a Map keeps insertion order).
    while (entries.size >= MAX_FILES || (entries.size > 0 && bytes + read.length > MAX_BYTES))
      drop(entries.keys().next().value!);
    entries.set(key, { bytes: read, mtimeMs });
    bytes += read.length;
    counts.prefetched++;
  }

  /** One listing per folder finds which candidates exist (regular files only: a link is not followed). */
  async function loadAll(workspace: Workspace, paths: readonly string[]): Promise<void> {
    const byFolder = new Map<string, string[]>();
    for (const file of paths) {
      const folder = path.posix.dirname(file);
      byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
    }
    for (const [folder, files] of byFolder) {
      const listed = await workspace.list(folder === "." ? "" : folder).catch(() => []);
      const found = new Map(listed.filter((e) => e.type === "file").map((e) => [e.path, e]));
      for (const file of files) {
        const entry = found.get(file);
        if (!entry || entry.size > MAX_FILE_BYTES) continue;
        const resolved = await workspace.resolve(file).catch(() => null);
        if (!resolved || entries.has(resolved.path)) continue;
        const read = await workspace.readBytes(file, MAX_FILE_BYTES).catch(() => null);
        if (read) keep(resolved.path, read, entry.mtimeMs);
      }
    }
  }

  return {
    hint(workspace, paths) {
      const fresh = paths.slice(0, 40).filter((file) => !loading.has(`${workspace.root}\0${file}`));
      if (fresh.length === 0) return;
      const task = loadAll(workspace, fresh).catch(() => undefined);
      for (const file of fresh) {
        const key = `${workspace.root}\0${file}`;
        loading.set(key, task);
        void task.finally(() => loading.delete(key));
      }
    },
    async take(workspace, resolved) {
      await loading.get(`${workspace.root}\0${resolved.requested}`);
      const entry = entries.get(resolved.path);
      if (!entry) {
        counts.misses++;
        return null;
      }
      drop(resolved.path);
      const info = await workspace.stat(resolved.requested).catch(() => null);
      if (!info || info.mtimeMs !== entry.mtimeMs || info.size !== entry.bytes.length) {
        counts.misses++;
        return null;
      }
      counts.hits++;
      return entry.bytes;
    },
    stats: () => ({ ...counts }),
  };
}

/**
 * The workspace paths a source file's relative imports may name (`./x` as x.ts, x.tsx ...,
 * x/index.ts; Python's `from .x import`), for prefetching: candidates, not all of which exist.
 */
export function importedPaths(file: string, text: string): string[] {
  if (!SOURCE.test(file)) return [];
  const dir = path.posix.dirname(file);
  const out = new Set<string>();
  const add = (specifier: string) => {
    const base = path.posix.normalize(path.posix.join(dir, specifier));
    if (base.startsWith("..")) return;
    if (path.posix.extname(base)) {
      out.add(base);
      // TypeScript's ESM style names the .js a .ts becomes.
      if (/\.m?js$/.test(base)) out.add(base.replace(/\.(m?)js$/, ".$1ts"));
      return;
    }
    for (const ext of EXTENSIONS) out.add(base + ext);
    out.add(`${base}/index.ts`);
  };
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.{1,2}\/[^"'\n]+)["']/g))
    add(match[1]!);
  if (file.endsWith(".py"))
    for (const match of text.matchAll(/^\s*from\s+(\.+)([\w.]*)\s+import/gm)) {
      const up = "../".repeat(match[1]!.length - 1);
      const rest = match[2]!.replace(/\./g, "/");
      if (rest) out.add(path.posix.normalize(path.posix.join(dir, up, `${rest}.py`)));
    }
  return [...out].filter((p) => !p.startsWith("..")).slice(0, 40);
}
