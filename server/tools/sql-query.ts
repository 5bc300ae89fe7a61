import { Readable } from "node:stream";
import { z } from "zod";
import { isWorkspaceError } from "@/server/workspace";
import { receiveFile } from "@/server/workspace/receive";
import { defineTool, type ToolContext } from "./define-tool";
import { projectNetwork } from "./project-network";
import { ToolFailure, ok } from "./result";
import { parsePostgresUrl, runPostgres, shownUrl } from "./sql/postgres-query";
import { type Cell, type QueryRows, runSqlite } from "./sql/sqlite-query";
import { formatSize } from "./text-window";

// sql_query: one SQL statement against a SQLite file in the workspace or a PostgreSQL server a
// postgres:// URL names. Reads by default; `write: true` changes data and asks a person first
// (a workspace file as edits do; an outside database always). SQLite reads the file's bytes
// through the Workspace (a regular file inside it, never a link out, never a FIFO) and queries
// them in memory; a write saves the result back through the Workspace.

const SQLITE_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_ROWS = 200;
const MAX_ROWS = 2_000;
const MAX_TEXT = 200_000;
const TIMEOUT_MS = 30_000;

const DESCRIPTION = `Runs one SQL statement on a SQLite file in the workspace (database: its path) or a PostgreSQL database (database: a postgres:// URL, reached under the project's network policy). Read-only unless write: true, which asks a person first. Returns at most max_rows rows (default ${DEFAULT_ROWS}). params fill ? (SQLite) or $1 (PostgreSQL).`;

const input = z.object({
  database: z.string().min(1).describe("A SQLite file's workspace path, or a postgres:// URL."),
  sql: z.string().min(1).max(100_000).describe("One SQL statement."),
  params: z
    .array(z.union([z.string(), z.number(), z.null()]))
    .max(100)
    .optional(),
  write: z.boolean().optional().describe("The statement changes data (asks for approval)."),
  max_rows: z.number().int().min(1).max(MAX_ROWS).optional(),
});
type SqlInput = z.infer<typeof input>;

const isPostgres = (i: SqlInput) => /^postgres(ql)?:\/\//i.test(i.database);

export const sqlQueryTool = defineTool({
  name: "sql_query",
  kind: "read",
  description: DESCRIPTION,
  input,
  onDemand: "always",
  describe: (i) =>
    `${i.write ? "Change" : "Query"} ${isPostgres(i) ? safeLabel(i.database) : i.database}: ${i.sql.replace(/\s+/g, " ").slice(0, 60)}`,
  mutates: (i) => i.write === true && !isPostgres(i),
  // A change to an outside database is not undone by a checkpoint: it asks whatever the mode.
  needsApproval: (i) => (i.write ? (isPostgres(i) ? "always" : true) : false),
  async execute(i, ctx) {
    const limits = { maxRows: i.max_rows ?? DEFAULT_ROWS, maxBytes: MAX_TEXT, timeoutMs: TIMEOUT_MS };
    const request = { sql: i.sql, params: i.params ?? [], write: i.write === true, ...limits };
    const url = parsePostgresUrl(i.database);
    if (url) {
      const rows = await runPostgres({ ...request, url }, ctx.fetchPolicy, await projectNetwork(ctx), ctx.signal);
      return rowsResult(shownUrl(url), rows, i.write === true);
    }
    return sqlite(i.database, request, ctx);
  },
});

async function sqlite(path: string, request: Omit<Parameters<typeof runSqlite>[0], "bytes">, ctx: ToolContext) {
  const label = (await ctx.workspace.resolve(path)).requested;
  const bytes = await ctx.workspace.readBytes(label, SQLITE_MAX_BYTES).catch((error: unknown) => {
    if (isWorkspaceError(error) && error.code === "TOO_LARGE")
      throw new ToolFailure(
        "TOO_LARGE",
        `'${label}' is over ${formatSize(SQLITE_MAX_BYTES)}; query it with sqlite3 in the shell.`,
      );
    throw error;
  });
  if (!bytes.subarray(0, 16).equals(Buffer.from("SQLite format 3\0", "latin1")))
    throw new ToolFailure(
      "INVALID_INPUT",
      `'${label}' is not a SQLite database (its header is not "SQLite format 3").`,
    );
  const run = await runSqlite({ ...request, bytes: new Uint8Array(bytes) }, ctx.signal).catch((error: unknown) => {
    if (error instanceof ToolFailure && /not authorized|authorization denied/i.test(error.message))
      throw new ToolFailure(
        "DENIED",
        request.write
          ? "ATTACH and VACUUM INTO are never run: they open files by path. Query this database only."
          : "This statement changes the database or its settings. Reads take SELECT, WITH and the schema pragmas (table_info, index_list…); to change data pass write: true, which asks a person first.",
      );
    throw error;
  });
  if (run.bytes) {
    await receiveFile(ctx.workspace, label, Readable.from([Buffer.from(run.bytes)]), {
      onExists: "replace",
      maxBytes: SQLITE_MAX_BYTES,
    });
  }
  return rowsResult(label, run, request.write);
}

function rowsResult(label: string, r: QueryRows, write: boolean) {
  const meta = { database: label, rows: r.rows.length, truncated: r.truncated, ...(write ? { write } : {}) };
  if (r.columns.length === 0) {
    const text = `${r.changes ?? 0} row(s) changed in ${label}.`;
    return ok(text, { kind: "text", text }, { ...meta, changes: r.changes });
  }
  const show = (v: Cell) => (v === null ? "NULL" : String(v));
  const table = [r.columns.join("\t"), ...r.rows.map((row) => row.map(show).join("\t"))].join("\n");
  const more = r.truncated ? `\n(more rows not shown: narrow the query, or raise max_rows up to ${MAX_ROWS})` : "";
  const text = `${r.rows.length} row(s) from ${label}:\n${table}${more}`;
  return ok(
    text,
    {
      kind: "table",
      columns: r.columns,
      rows: r.rows.map((row) => row.map(show)),
      ...(more ? { footer: more.trim() } : {}),
    },
    meta,
  );
}

function safeLabel(database: string): string {
  try {
    return shownUrl(new URL(database));
  } catch {
    return "a PostgreSQL database";
  }
}
