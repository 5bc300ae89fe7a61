import { Worker } from "node:worker_threads";
import { ToolFailure } from "../result";

// Runs one statement over a SQLite database's bytes in a thread of its own (sqlite-worker.mjs),
// ended when it runs past its time or the call is cancelled.

export type Cell = string | number | null;

export interface QueryRows {
  columns: string[];
  rows: Cell[][];
  truncated: boolean;
  /** Rows changed by a statement that returns none. */
  changes: number | null;
}

export interface SqliteRun extends QueryRows {
  /** The database after a write, to be saved; null for a read. */
  bytes: Uint8Array | null;
}

export interface SqliteRequest {
  bytes: Uint8Array;
  sql: string;
  params: Cell[];
  write: boolean;
  maxRows: number;
  maxBytes: number;
  timeoutMs: number;
}

type Answer = ({ ok: true } & SqliteRun) | { ok: false; message: string };

export function runSqlite(request: SqliteRequest, signal: AbortSignal): Promise<SqliteRun> {
  const { timeoutMs, ...data } = request;
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./sqlite-worker.mjs", import.meta.url), {
      name: "tandem-sqlite",
      workerData: data,
      transferList: [data.bytes.buffer as ArrayBuffer],
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    const stop = (error: Error) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        stop(
          new ToolFailure(
            "TIMEOUT",
            `The query ran past ${timeoutMs / 1000} s and was stopped. Narrow it (a WHERE, a LIMIT, an index).`,
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => stop(new ToolFailure("ABORTED", "The query was cancelled."));
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (answer: Answer) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      if (answer.ok) resolve(answer);
      else reject(new ToolFailure("INVALID_INPUT", `SQLite refused the query: ${answer.message}`));
    });
    worker.once("error", (error) => stop(new ToolFailure("INTERNAL", `The SQLite query failed: ${error.message}`)));
  });
}
