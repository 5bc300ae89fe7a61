import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import pg from "pg";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { blockedReason } from "@/server/sandbox/ip-policy";
import { trustedCa } from "@/server/sandbox/trust-store";
import type { FetchPolicy } from "../define-tool";
import { onServerAllowList } from "../guarded-fetch";
import { refusedByProject } from "../project-network";
import { ToolFailure } from "../result";
import type { Cell, QueryRows } from "./sqlite-query";

// One statement against a PostgreSQL server a postgres:// URL names, reached the way the
// server's own fetches for a project are: the project's network policy by host name, then the
// address check on the address actually connected to (the name is resolved once, checked, and
// the connection goes to that address, so a rebinding name gains nothing). A read runs in a
// READ ONLY transaction that is rolled back; a write (approved) in one that is committed. The
// extended protocol takes exactly one statement, so "COMMIT; DELETE …" cannot leave the
// read-only transaction. Rows stream in; those past the caps are not kept.

export interface PostgresRequest {
  url: URL;
  sql: string;
  params: Cell[];
  write: boolean;
  maxRows: number;
  maxBytes: number;
  timeoutMs: number;
}

export function parsePostgresUrl(input: string): URL | null {
  if (!/^postgres(ql)?:\/\//i.test(input)) return null;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ToolFailure("INVALID_INPUT", "database: not a valid postgres:// URL.");
  }
  if (!url.hostname) throw new ToolFailure("INVALID_INPUT", "database: the postgres:// URL names no host.");
  // Parameters such as host= (a Unix socket) or sslrootcert= (a server file) are not taken from the URL.
  for (const key of url.searchParams.keys())
    if (key !== "sslmode")
      throw new ToolFailure("INVALID_INPUT", `database: the URL parameter '${key}' is not supported (only sslmode).`);
  return url;
}

/** The URL as it may be shown: without its password. */
export function shownUrl(url: URL): string {
  const copy = new URL(url);
  if (copy.password) copy.password = "***";
  return copy.toString();
}

async function checkedAddress(url: URL, fetchPolicy: FetchPolicy, project: NetworkPolicy): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const refused = refusedByProject(project, host, "sql_query");
  if (refused) throw refused;
  const port = url.port || "5432";
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await (fetchPolicy.resolve ?? ((h: string) => lookup(h, { all: true, verbatim: true })))(host).catch(() => {
        throw new ToolFailure("FETCH_FAILED", `database: the host '${host}' could not be resolved.`);
      });
  if (addresses.length === 0) throw new ToolFailure("FETCH_FAILED", `database: '${host}' has no address.`);
  const first = addresses[0]!.address;
  if (onServerAllowList(fetchPolicy.allowHosts, host, port)) return first;
  for (const { address } of addresses) {
    const why = blockedReason(address, {
      host,
      entries: project.internalHosts ?? [],
      teamEntries: project.teamInternalHosts ?? [],
    });
    if (why)
      throw new ToolFailure(
        "BLOCKED_ADDRESS",
        `'${host}' resolves to ${address}, a ${why} address. sql_query only reaches databases at public addresses; for a local database use the shell (psql) in the sandbox.`,
      );
  }
  return first;
}

export async function runPostgres(
  request: PostgresRequest,
  fetchPolicy: FetchPolicy,
  project: NetworkPolicy,
  signal: AbortSignal,
): Promise<QueryRows> {
  const { url } = request;
  const address = await checkedAddress(url, fetchPolicy, project);
  const sslmode = url.searchParams.get("sslmode");
  const ca = trustedCa();
  const client = new pg.Client({
    host: address,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)) || undefined,
    ssl:
      sslmode && sslmode !== "disable"
        ? { servername: url.hostname, host: url.hostname, ...(ca ? { ca } : {}) }
        : false,
    connectionTimeoutMillis: request.timeoutMs,
    statement_timeout: request.timeoutMs,
    application_name: "tandem-sql_query",
  });
  const onAbort = () => void client.end();
  signal.addEventListener("abort", onAbort, { once: true });
  client.on("error", () => {});
  try {
    await client.connect().catch((error: Error) => {
      throw new ToolFailure("FETCH_FAILED", `Could not connect to ${shownUrl(url)}: ${error.message}`);
    });
    await client.query(request.write ? "BEGIN" : "BEGIN READ ONLY");
    const result = await streamRows(client, request);
    await client.query(request.write ? "COMMIT" : "ROLLBACK").catch(() => undefined);
    return result;
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    if (signal.aborted) throw new ToolFailure("ABORTED", "The query was cancelled.");
    throw new ToolFailure("INVALID_INPUT", `PostgreSQL refused the query: ${(error as Error).message}`);
  } finally {
    signal.removeEventListener("abort", onAbort);
    await client.end().catch(() => undefined);
  }
}

function streamRows(client: pg.Client, request: PostgresRequest): Promise<QueryRows> {
  return new Promise((resolve, reject) => {
    // queryMode "extended" is pg's (Parse/Bind: one statement only); its types do not list it.
    const config: pg.QueryArrayConfig & { queryMode: "extended" } = {
      text: request.sql,
      values: request.params,
      rowMode: "array",
      queryMode: "extended",
    };
    const query = new pg.Query(config);
    const rows: Cell[][] = [];
    let columns: string[] = [];
    let size = 0;
    let truncated = false;
    query.on("row", (row: unknown[], result?: pg.QueryResult) => {
      if (truncated) return;
      columns = result?.fields.map((f) => f.name) ?? columns;
      const shown = row.map(cell);
      size += shown.reduce<number>((n, v) => n + (v === null ? 4 : String(v).length), 0);
      // Rows past the caps are counted off, not kept (the statement timeout bounds the rest).
      if (rows.length >= request.maxRows || size > request.maxBytes) truncated = true;
      else rows.push(shown);
    });
    query.on("error", reject);
    query.on("end", (result: pg.QueryResult) => {
      const fields = result.fields.map((f) => f.name);
      resolve({
        columns: fields.length ? fields : columns,
        rows,
        truncated,
        changes: fields.length ? null : (result.rowCount ?? 0),
      });
    });
    client.query(query);
  });
}

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" || typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return `<bytea ${value.length} bytes>`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
