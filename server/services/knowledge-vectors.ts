import { createRequire } from "node:module";
import type { Db } from "@/server/db/client";
import { ensurePgvector, listEmbeddings, nearestByPgvector } from "@/server/db/repositories/knowledge";

// Nearest passages to a query vector. Where the database has pgvector, Postgres computes the
// cosine distances over the stored arrays. The embedded Postgres has no pgvector, so otherwise each
// project's embeddings are loaded into an in-process HNSW index, rebuilt from the table after the
// embeddings change. usearch was chosen for that index (over hnswlib-node): it is actively
// maintained, ships prebuilt Linux/macOS/Windows binaries (no compiler at install), supports
// cosine distance directly and answers in microseconds for the sizes of a workspace.

export type VectorBackend = "pgvector" | "in-process";
export type Neighbour = { hash: string; distance: number };

export type VectorSearch = {
  backend(): Promise<VectorBackend>;
  nearest(projectId: string, model: string, vector: number[], limit: number): Promise<Neighbour[]>;
  /** The project's embeddings changed: the in-process index is rebuilt on the next query. */
  invalidate(projectId: string): void;
};

// usearch's ESM entry finds its native binary from the caller's stack trace, which fails under
// loaders that rewrite modules (vitest); its CommonJS entry finds it from __dirname.
const require = createRequire(import.meta.url);
const { Index, MetricKind, ScalarKind } = require("usearch") as typeof import("usearch");
type Index = InstanceType<typeof Index>;

type Loaded = { index: Index; hashes: string[]; dimensions: number };

export function createVectorSearch(db: Db): VectorSearch {
  let detected: Promise<VectorBackend> | undefined;
  const indexes = new Map<string, Promise<Loaded | null>>();
  const backend = () =>
    (detected ??= ensurePgvector(db)
      .then((has): VectorBackend => (has ? "pgvector" : "in-process"))
      .catch((): VectorBackend => "in-process"));

  async function load(projectId: string, model: string): Promise<Loaded | null> {
    const rows = await listEmbeddings(db, projectId, model);
    const dimensions = rows[0]?.vector.length ?? 0;
    const usable = rows.filter((r) => r.vector.length === dimensions);
    if (!usable.length) return null;
    const index = new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      multi: false,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 128,
    });
    index.add(
      BigUint64Array.from(usable, (_, i) => BigInt(i)),
      usable.map((r) => Float32Array.from(r.vector)),
    );
    return { index, hashes: usable.map((r) => r.hash), dimensions };
  }

  return {
    backend,
    async nearest(projectId, model, vector, limit) {
      if ((await backend()) === "pgvector") return nearestByPgvector(db, projectId, model, vector, limit);
      const key = `${projectId}\u0000${model}`;
      let pending = indexes.get(key);
      if (!pending) {
        pending = load(projectId, model);
        indexes.set(key, pending);
        pending.catch(() => indexes.delete(key));
      }
      const loaded = await pending;
      if (!loaded || loaded.dimensions !== vector.length) return [];
      const matches = loaded.index.search(Float32Array.from(vector), Math.min(limit, loaded.hashes.length), 0);
      return Array.from(matches.keys, (k, i) => ({ hash: loaded.hashes[Number(k)]!, distance: matches.distances[i]! }));
    },
    invalidate(projectId) {
      for (const key of indexes.keys()) if (key.startsWith(`${projectId}\u0000`)) indexes.delete(key);
    },
  };
}
