// One SQLite query in a thread of its own (node:sqlite is synchronous: a slow query must not
// stop the server, and a query past its time is ended by terminating the thread). The database
// is the file's bytes, deserialized into memory: SQLite never opens a path, so no link or FIFO in
// the workspace can redirect it. The authorizer refuses ATTACH (and with it VACUUM INTO), which
// would open or create a file at a path the query names; a read allows only reading statements.
import { parentPort, workerData } from "node:worker_threads";
import { DatabaseSync, constants as c } from "node:sqlite";

const { bytes, sql, params, write, maxRows, maxBytes } = workerData;

const READS = new Set([c.SQLITE_SELECT, c.SQLITE_READ, c.SQLITE_FUNCTION, c.SQLITE_RECURSIVE]);
// Pragmas that only describe the schema; every other pragma (and any pragma with a value) is refused on a read.
const SCHEMA_PRAGMAS = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "foreign_key_list",
]);

function run() {
  const db = new DatabaseSync(":memory:", { allowExtension: false });
  // A file in WAL mode is opened as a rollback-journal one: its header says WAL, which memory cannot hold.
  if (bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
  db.deserialize(bytes);
  db.enableDefensive(true);
  db.setAuthorizer((action, first) => {
    if (action === c.SQLITE_ATTACH || action === c.SQLITE_DETACH) return c.SQLITE_DENY;
    if (write) return c.SQLITE_OK;
    if (READS.has(action)) return c.SQLITE_OK;
    if (action === c.SQLITE_PRAGMA && SCHEMA_PRAGMAS.has(String(first).toLowerCase())) return c.SQLITE_OK;
    return c.SQLITE_DENY;
  });
  const statement = db.prepare(sql);
  const columns = statement.columns().map((col) => col.name);
  if (columns.length === 0) {
    const { changes } = statement.run(...params);
    return { columns, rows: [], truncated: false, changes: Number(changes), bytes: write ? db.serialize() : null };
  }
  statement.setReturnArrays(true);
  const rows = [];
  let size = 0;
  let truncated = false;
  for (const row of statement.iterate(...params)) {
    const shown = row.map(cell);
    size += shown.reduce((n, v) => n + (v === null ? 4 : String(v).length), 0);
    if (rows.length >= maxRows || size > maxBytes) {
      truncated = true;
      break;
    }
    rows.push(shown);
  }
  // A write that returns rows (INSERT … RETURNING) changed the database as well.
  return { columns, rows, truncated, changes: null, bytes: write ? db.serialize() : null };
}

/** A cell as JSON can carry it: blobs as their size, big integers as text. */
function cell(value) {
  if (value instanceof Uint8Array) return `<blob ${value.length} bytes>`;
  if (typeof value === "bigint") return value.toString();
  return value;
}

try {
  parentPort.postMessage({ ok: true, ...run() });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
