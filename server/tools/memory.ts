import { z } from "zod";
import { defineTool, type ToolContext } from "./define-tool";
import { ToolFailure, failure, ok } from "./result";

// memory: what the agent keeps across sessions. Project memory is shared by the project's
// members; user memory follows the user who drives the turn across projects. Stored in Postgres,
// searched with ranked full-text search (a 0–1 score that `threshold` filters).
//
// Project memory goes into every later prompt of every member, so one prompt injection stored
// there would persist for the whole team: the agent's `store` in project scope asks a person
// whatever the approval mode, yolo included (yolo is one person's choice for their own session,
// not consent for what the team's agent reads from then on), and the memory is marked as written
// by the agent, with who approved it.

/** Whose memory it is: a project's (its members share it) or a user's (across projects). */
export type MemoryOwner = { scope: "project"; projectId: string } | { scope: "user"; userId: string };
/** What the tool reads of a stored memory. */
export type Memory = { key: string; value: string };
export type MemoryHit = Memory & { score: number };
/** Who wrote a memory: a person, or the agent (with the person who approved it, when one did). */
export type MemoryAuthor = { createdById: string | null; agentWritten?: boolean; approvedById?: string | null };

export interface MemoryStore {
  store(owner: MemoryOwner, input: { key: string; value: string } & MemoryAuthor): Promise<Memory>;
  retrieve(owner: MemoryOwner, key: string): Promise<Memory | null>;
  delete(owner: MemoryOwner, key: string): Promise<boolean>;
  search(owners: MemoryOwner[], input: { query: string; limit: number; threshold: number }): Promise<MemoryHit[]>;
  list(owner: MemoryOwner): Promise<Memory[]>;
}

const input = z
  .object({
    action: z.enum(["store", "retrieve", "search", "delete", "list"]),
    key: z.string().min(1).max(200).optional().describe("A short, stable name, e.g. `test-command` or `style/naming`."),
    value: z.string().min(1).max(20_000).optional().describe("What to remember (store)."),
    query: z.string().min(1).max(500).optional().describe("Words to search for (search)."),
    limit: z.number().int().min(1).max(50).optional().describe("Most results to return (search, default 10)."),
    threshold: z.number().min(0).max(1).optional().describe("Lowest score to return, 0–1 (search, default 0)."),
    scope: z
      .enum(["project", "user"])
      .optional()
      .describe("`project` (default; search: both): shared with the team. `user`: your user's own, across projects."),
  })
  .superRefine((v, ctx) => {
    const need = (field: "key" | "value" | "query") => {
      if (v[field] === undefined)
        ctx.addIssue({ code: "custom", path: [field], message: `${field} is required for action "${v.action}"` });
    };
    if (v.action === "store") need("key"), need("value");
    if (v.action === "retrieve" || v.action === "delete") need("key");
    if (v.action === "search") need("query");
  });

export const ownerOf = (scope: "project" | "user", ctx: ToolContext): MemoryOwner =>
  scope === "project" ? { scope, projectId: ctx.projectId } : { scope, userId: ctx.userId };

/** Whose memories a search reads: the scope asked for, else both (the user's preferences answer as the project's facts do). */
const searchOwners = (scope: "project" | "user" | undefined, ctx: ToolContext): MemoryOwner[] =>
  scope ? [ownerOf(scope, ctx)] : [ownerOf("project", ctx), ownerOf("user", ctx)];

/**
 * Stores what the agent wrote under `key`: a project memory only with the approval of a person
 * (the call asks "always"), and marked as the agent's with who approved it.
 */
export async function storeAgentMemory(
  store: MemoryStore,
  scope: "project" | "user",
  entry: Memory,
  ctx: ToolContext,
): Promise<Memory> {
  const approvedById = ctx.grant?.approvedById ?? null;
  if (scope === "project" && !approvedById) {
    throw new ToolFailure(
      "UNAVAILABLE",
      'Project memory is shared with the team: storing it needs a person\'s approval, and none was given for this call. Ask the user, or use scope "user".',
    );
  }
  return store.store(ownerOf(scope, ctx), {
    ...entry,
    createdById: ctx.userId,
    agentWritten: true,
    approvedById,
  });
}

export function memoriesToMarkdown(title: string, rows: Memory[]): string {
  const body = rows.map((m) => `## ${m.key}\n\n${m.value.trim()}\n`).join("\n");
  return `# ${title}\n\n${body || "_No memories yet._\n"}`;
}

/** The user's memories nearest a topic by meaning (embeddings); absent without an embedding model. */
export type UserMemoryMeaning = (userId: string, topic: string, signal: AbortSignal) => Promise<MemoryHit[]>;

const RRF_K = 60;

/** Reciprocal rank fusion by key: ranks, not scores, since full-text and cosine scores differ in scale. */
function fuse(rankings: MemoryHit[][], limit: number): MemoryHit[] {
  const fused = new Map<string, MemoryHit>();
  for (const ranking of rankings)
    ranking.forEach((hit, rank) => {
      const seen = fused.get(hit.key);
      const score = 1 / (RRF_K + rank + 1);
      fused.set(hit.key, seen ? { ...seen, score: seen.score + score } : { ...hit, score });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}

/**
 * `meaning`: with an embedding model configured, a search that reads the user's memories ranks
 * them by meaning too, fused with the words' ranking by reciprocal rank as the knowledge base's is.
 */
export function memoryTool(store: MemoryStore, meaning?: UserMemoryMeaning) {
  return defineTool({
    name: "memory",
    kind: "memory",
    description:
      "Lasting facts across sessions: commands, conventions, decisions, the user's preferences. " +
      "`store` (key, value; in scope `project` it waits for a person's approval), `retrieve` (key), `search` (query), `delete` (key), `list`. " +
      "Short and factual; never secrets.",
    input,
    needsApproval: (i) => (i.action === "store" && (i.scope ?? "project") === "project" ? "always" : false),
    describe: (i) =>
      i.action === "search"
        ? `Search memory: ${i.query}`
        : i.action === "list"
          ? `List ${i.scope ?? "project"} memory`
          : `Memory ${i.action}: ${i.key}`,
    async execute(i, ctx) {
      const scope = i.scope ?? "project";
      const owner = ownerOf(scope, ctx);
      switch (i.action) {
        case "store": {
          const row = await storeAgentMemory(store, scope, { key: i.key!, value: i.value! }, ctx);
          return ok(`Stored ${scope} memory "${row.key}".`, {
            kind: "markdown",
            text: `**${row.key}** (${scope})\n\n${row.value}`,
          });
        }
        case "retrieve": {
          const row = await store.retrieve(owner, i.key!);
          if (!row)
            return failure(
              "NOT_FOUND",
              `No ${scope} memory named "${i.key}". Use action "search" or "list" to find what exists.`,
            );
          return ok(row.value, { kind: "markdown", text: `**${row.key}**\n\n${row.value}` });
        }
        case "delete": {
          const deleted = await store.delete(owner, i.key!);
          if (!deleted) return failure("NOT_FOUND", `No ${scope} memory named "${i.key}"; nothing was deleted.`);
          return ok(`Deleted ${scope} memory "${i.key}".`);
        }
        case "list": {
          const rows = await store.list(owner);
          const text = rows.length
            ? rows.map((m) => `- ${m.key}: ${m.value.split("\n")[0]!.slice(0, 120)}`).join("\n")
            : `No ${scope} memories yet.`;
          return ok(text, {
            kind: "markdown",
            text: memoriesToMarkdown(`${scope === "project" ? "Project" : "Your"} memory`, rows),
          });
        }
        case "search": {
          const limit = i.limit ?? 10;
          const byMeaning = meaning && i.scope !== "project";
          const [words, near] = await Promise.all([
            store.search(searchOwners(i.scope, ctx), { query: i.query!, limit, threshold: i.threshold ?? 0 }),
            byMeaning
              ? meaning(ctx.userId, i.query!, ctx.signal).then(
                  (found) => ({ found, note: "" }),
                  (error: unknown) => ({
                    found: [] as MemoryHit[],
                    note: `\n\nNote: ranked by words only; the embedding model failed: ${(error as Error).message}`,
                  }),
                )
              : null,
          ]);
          const hits = near ? fuse([words, near.found], limit) : words;
          if (!hits.length)
            return ok(
              `No ${i.scope ? `${i.scope} ` : ""}memories match "${i.query}"${i.threshold ? ` with score ≥ ${i.threshold}` : ""}.`,
            );
          const lines = hits.map((h) => `- [${h.score.toFixed(2)}] ${h.key}: ${h.value}`);
          return ok(`${lines.join("\n")}${near?.note ?? ""}`, {
            kind: "table",
            columns: ["score", "key", "value"],
            rows: hits.map((h) => [h.score.toFixed(2), h.key, h.value.slice(0, 200)]),
          });
        }
      }
    },
  });
}
