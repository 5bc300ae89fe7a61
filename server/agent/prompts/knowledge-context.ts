import type { KnowledgeResult } from "@/server/tools/search-knowledge-base";

// The knowledge base in the prompt without a tool call (the seed's RAG fallback): when the latest
// message asks something, the index's best passages that clearly match it are put in the Context
// section with their path and lines, for the model to cite. "Clearly": full-text ranking's
// normalized score (ts_rank_cd, 0–1) of at least 0.1; with semantic ranking, a passage found both
// by its words and by its meaning (its fused score is over what one ranking's first place gives,
// 1 / (60 + 1): server/services/knowledge-index.ts fuses with k = 60).

export type KnowledgePassage = { path: string; startLine: number; endLine: number; text: string };

const MAX_PASSAGES = 3;
const PASSAGE_CHARS = 1_500;
const FULL_TEXT_FLOOR = 0.1;
const BOTH_RANKINGS_FLOOR = 1 / 61;
const QUESTION = /^(how|what|why|where|which|who|when|does|do|is|are|can|could|should|explain|describe)\b/i;

/** Whether a message asks for knowledge: a question of a few words or more. */
export function asksForKnowledge(message: string): boolean {
  const text = message.trim();
  if (text.split(/\s+/).length < 3) return false;
  return text.includes("?") || QUESTION.test(text);
}

/** The passages of a search that clearly match, best first, each cut to its budget. */
export function clearPassages(result: KnowledgeResult): KnowledgePassage[] {
  const floor = result.ranking === "hybrid" ? BOTH_RANKINGS_FLOOR : FULL_TEXT_FLOOR;
  return result.hits
    .filter((hit) => hit.score > floor)
    .slice(0, MAX_PASSAGES)
    .map(({ path, startLine, endLine, text }) => ({
      path,
      startLine,
      endLine,
      text: text.length > PASSAGE_CHARS ? `${text.slice(0, PASSAGE_CHARS)}…` : text,
    }));
}
