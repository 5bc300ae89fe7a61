import { cosineSimilarity, embedMany } from "ai";
import type { Embedder } from "@/server/agent/embedding-models";
import type { Db } from "@/server/db/client";
import { listMemories } from "@/server/db/repositories/memories";
import type { UserMemoryMeaning } from "@/server/tools/memory";

// memory search by meaning: the topic and the user's memories embedded with the configured
// embedding model (as the knowledge base's passages are), ranked by cosine similarity. A user's
// memories are few, so they are embedded at each recall rather than stored.

const MAX_MEMORIES = 200;
const LIMIT = 10;

export function memoryMeaning(db: Db, embedder: Embedder): UserMemoryMeaning {
  return async (userId, topic, signal) => {
    const rows = (await listMemories(db, { scope: "user", userId })).slice(0, MAX_MEMORIES);
    if (rows.length === 0) return [];
    const { embeddings } = await embedMany({
      model: embedder.model,
      values: [topic, ...rows.map((m) => `${m.key}: ${m.value}`)],
      maxRetries: 1,
      abortSignal: signal,
    });
    const [query, ...vectors] = embeddings;
    return rows
      .map((m, i) => ({ key: m.key, value: m.value, score: cosineSimilarity(query!, vectors[i]!) }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, LIMIT);
  };
}
