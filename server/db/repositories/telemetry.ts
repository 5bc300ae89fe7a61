import type { Db } from "@/server/db/client";

// The project's own tool and model metrics, read from the session log (every tool result carries
// its time, outcome and what the model read; every model step its token usage), so the figures
// are durable and the same on every instance: the status tool and the admin page read them here.

export type ToolFigures = {
  tool: string;
  calls: number;
  errors: number;
  /** The error code seen most often, if any. */
  topError: string | null;
  avgMs: number;
  p95Ms: number;
  /** Characters of results the model read. */
  resultChars: number;
};

export type ModelFigures = {
  model: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider served from its prompt cache. */
  cachedTokens: number;
  retries: number;
  errors: number;
};

export type TelemetrySummary = { since: Date; tools: ToolFigures[]; models: ModelFigures[] };

/** Since `since`, for one project, or for every project when `projectId` is null. */
export async function telemetrySummary(
  db: Db,
  input: { projectId: string | null; since: Date },
): Promise<TelemetrySummary> {
  const { projectId, since } = input;
  const tools = await db.$queryRaw<ToolFigures[]>`
    SELECT e.payload->>'toolName' AS tool,
           count(*)::int AS calls,
           (count(*) FILTER (WHERE (e.payload->>'ok')::boolean IS NOT TRUE))::int AS errors,
           mode() WITHIN GROUP (ORDER BY e.payload->>'errorCode') AS "topError",
           coalesce(avg((e.payload->>'durationMs')::float8), 0)::float8 AS "avgMs",
           coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY (e.payload->>'durationMs')::float8), 0)::float8 AS "p95Ms",
           coalesce(sum(length(e.payload->>'llm')), 0)::float8 AS "resultChars"
    FROM session_event e JOIN agent_session s ON s.id = e."sessionId"
    WHERE e.type = 'tool_result' AND e."createdAt" >= ${since}
      AND (${projectId}::text IS NULL OR s."projectId" = ${projectId}::text)
    GROUP BY 1
    ORDER BY calls DESC, tool`;
  const models = await db.$queryRaw<ModelFigures[]>`
    SELECT s.model,
           (count(*) FILTER (WHERE e.type = 'usage'))::int AS steps,
           coalesce(sum((e.payload->'step'->>'inputTokens')::float8), 0)::float8 AS "inputTokens",
           coalesce(sum((e.payload->'step'->>'outputTokens')::float8), 0)::float8 AS "outputTokens",
           coalesce(sum((e.payload->'step'->>'cachedInputTokens')::float8), 0)::float8 AS "cachedTokens",
           (count(*) FILTER (WHERE e.type = 'model_retry'))::int AS retries,
           (count(*) FILTER (WHERE e.type = 'error'))::int AS errors
    FROM session_event e JOIN agent_session s ON s.id = e."sessionId"
    WHERE e.type IN ('usage', 'model_retry', 'error') AND e."createdAt" >= ${since}
      AND (${projectId}::text IS NULL OR s."projectId" = ${projectId}::text)
    GROUP BY 1
    ORDER BY steps DESC, model`;
  return { since, tools, models };
}
