import { embed, embedMany } from "ai";
import type { Db } from "@/server/db/client";
import type { Embedder } from "@/server/agent/embedding-models";
import {
  embeddingCounts,
  passagesByHash,
  passagesWithoutEmbedding,
  removeUnusedEmbeddings,
  saveEmbeddings,
  type KnowledgeRow,
} from "@/server/db/repositories/knowledge";
import type { VectorBackend, VectorSearch } from "@/server/services/knowledge-vectors";

// Embeddings of the knowledge index's passages, made in the background: after each sync, the
// passages with no embedding under the configured model are embedded in batches, a bounded number
// of requests at a time, and stored by text hash, so an unchanged passage is never embedded again.
// A failing endpoint stops the pass and is remembered as the reason (shown with every search and
// in the project's settings); full-text ranking never depends on it.

const BATCH = 32;
const CONCURRENT_REQUESTS = 2;

/** `problem`: why the configured embedding model cannot be used at all (a missing key...). */
export type EmbeddingSource = Embedder | { id: string; problem: string };

export type SemanticStatus = {
  model: string;
  backend: VectorBackend;
  embedded: number;
  pending: number;
  error?: string;
};

export type KnowledgeEmbeddings = ReturnType<typeof createKnowledgeEmbeddings>;

export function createKnowledgeEmbeddings(options: { db: Db; source: EmbeddingSource; vectors: VectorSearch }) {
  const { db, source, vectors } = options;
  const passes = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const errors = new Map<string, string>();
  /** Projects whose passages were all embedded by the last pass (nothing to do until files change). */
  const caughtUp = new Set<string>();
  const controller = new AbortController();

  async function pass(projectId: string, embedder: Embedder) {
    try {
      for (;;) {
        const missing = await passagesWithoutEmbedding(db, projectId, embedder.id, BATCH * CONCURRENT_REQUESTS);
        if (!missing.length) break;
        const batches = Array.from({ length: Math.ceil(missing.length / BATCH) }, (_, i) =>
          missing.slice(i * BATCH, (i + 1) * BATCH),
        );
        const embedded = await Promise.all(
          batches.map(async (batch) => {
            const { embeddings } = await embedMany({
              model: embedder.model,
              values: batch.map((p) => p.text),
              maxRetries: 1,
              abortSignal: controller.signal,
            });
            return batch.map((p, i) => ({ hash: p.hash, vector: embeddings[i]! }));
          }),
        );
        await saveEmbeddings(db, projectId, embedder.id, embedded.flat());
        vectors.invalidate(projectId);
        if (missing.length < BATCH * CONCURRENT_REQUESTS) break;
      }
      if (await removeUnusedEmbeddings(db, projectId)) vectors.invalidate(projectId);
      errors.delete(projectId);
      caughtUp.add(projectId);
    } catch (error) {
      caughtUp.delete(projectId);
      if (!controller.signal.aborted) errors.set(projectId, `${embedder.endpoint}: ${reason(error)}`);
    }
  }

  /** Starts (or queues one more) background pass for the project; resolves when it is caught up. */
  function refresh(projectId: string): Promise<void> {
    if (!("model" in source) || controller.signal.aborted) return Promise.resolve();
    const running = passes.get(projectId);
    if (running) {
      again.add(projectId);
      return running;
    }
    const run = (async () => {
      do {
        again.delete(projectId);
        await pass(projectId, source);
      } while (again.has(projectId) && !controller.signal.aborted);
    })().finally(() => passes.delete(projectId));
    passes.set(projectId, run);
    return run;
  }

  return {
    model: source.id,
    refresh,
    /** Whether a pass is due although no file changed: never run here yet, or the last one failed. */
    due: (projectId: string) => !caughtUp.has(projectId),
    /** Resolves once no pass runs for the project (tests and the settings page wait on it). */
    settled: (projectId: string) => passes.get(projectId) ?? Promise.resolve(),
    /** The passages nearest in meaning to the query, best first; throws when the query cannot be embedded. */
    async nearest(projectId: string, query: string, limit: number, signal?: AbortSignal): Promise<KnowledgeRow[]> {
      if (!("model" in source)) throw new Error(source.problem);
      const { embedding } = await embed({ model: source.model, value: query, maxRetries: 1, abortSignal: signal });
      const neighbours = await vectors.nearest(projectId, source.id, embedding, limit);
      const similarity = new Map(neighbours.map((n) => [n.hash, 1 - n.distance]));
      const rows = await passagesByHash(
        db,
        projectId,
        neighbours.map((n) => n.hash),
      );
      return rows.map(({ hash, ...row }) => ({ ...row, score: similarity.get(hash) ?? 0 }));
    },
    async status(projectId: string): Promise<SemanticStatus> {
      const [backend, counts] = await Promise.all([vectors.backend(), embeddingCounts(db, projectId, source.id)]);
      const error = "model" in source ? errors.get(projectId) : source.problem;
      return { model: source.id, backend, ...counts, ...(error ? { error } : {}) };
    },
    async dispose() {
      controller.abort();
      await Promise.allSettled(passes.values());
    },
  };
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
