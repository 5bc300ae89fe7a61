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
      .default("project")
      .describe("`project`: shared with the project's members. `user`: your user's own, across projects."),
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

export function memoryTool(store: MemoryStore) {
  return defineTool({
    name: "memory",
    kind: "memory",
    description:
      "Remember facts across sessions and recall them: build and test commands, conventions, decisions and their reasons, " +
      "people's preferences. `store` (key, value) creates or replaces; `retrieve` (key); `search` (query, limit?, threshold?) " +
      "ranks by relevance with a 0–1 score; `delete` (key); `list`. scope `project` (default) is shared with the team: " +
      "every `store` there waits for a person's approval; " +
      "`user` is private to the user you work for. Keep entries short and factual; never store secrets.",
    input,
    needsApproval: (i) => (i.action === "store" && i.scope === "project" ? "always" : false),
    describe: (i) =>
      i.action === "search"
        ? `Search memory: ${i.query}`
        : i.action === "list"
          ? `List ${i.scope} memory`
          : `Memory ${i.action}: ${i.key}`,
    async execute(i, ctx) {
      const owner = ownerOf(i.scope, ctx);
      switch (i.action) {
        case "store": {
          const row = await storeAgentMemory(store, i.scope, { key: i.key!, value: i.value! }, ctx);
          return ok(`Stored ${i.scope} memory "${row.key}".`, {
            kind: "markdown",
            text: `**${row.key}** (${i.scope})\n\n${row.value}`,
          });
        }
        case "retrieve": {
          const row = await store.retrieve(owner, i.key!);
          if (!row)
            return failure(
              "NOT_FOUND",
              `No ${i.scope} memory named "${i.key}". Use action "search" or "list" to find what exists.`,
            );
          return ok(row.value, { kind: "markdown", text: `**${row.key}**\n\n${row.value}` });
        }
        case "delete": {
          const deleted = await store.delete(owner, i.key!);
          if (!deleted) return failure("NOT_FOUND", `No ${i.scope} memory named "${i.key}"; nothing was deleted.`);
          return ok(`Deleted ${i.scope} memory "${i.key}".`);
        }
        case "list": {
          const rows = await store.list(owner);
          const text = rows.length
            ? rows.map((m) => `- ${m.key}: ${m.value.split("\n")[0]!.slice(0, 120)}`).join("\n")
            : `No ${i.scope} memories yet.`;
          return ok(text, {
            kind: "markdown",
            text: memoriesToMarkdown(`${i.scope === "project" ? "Project" : "Your"} memory`, rows),
          });
        }
        case "search": {
          const hits = await store.search([owner], {
            query: i.query!,
            limit: i.limit ?? 10,
            threshold: i.threshold ?? 0,
          });
          if (!hits.length)
            return ok(`No ${i.scope} memories match "${i.query}"${i.threshold ? ` with score ≥ ${i.threshold}` : ""}.`);
          const lines = hits.map((h) => `- [${h.score.toFixed(2)}] ${h.key}: ${h.value}`);
          return ok(lines.join("\n"), {
            kind: "table",
            columns: ["score", "key", "value"],
            rows: hits.map((h) => [h.score.toFixed(2), h.key, h.value.slice(0, 200)]),
          });
        }
      }
    },
  });
}
