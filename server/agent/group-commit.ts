// Group commit of session event rows. Every streaming session writes a row about every FLUSH_MS
// (events.ts), so 50 sessions meant a thousand single-row INSERTs a second, and the query
// compiler and round trip of each one were over a quarter of the server's CPU (bench:stream).
// Here at most one INSERT is in flight; rows that any session asks to write meanwhile wait and
// go together in the next one. An idle server writes a row at once, a busy one writes fewer,
// larger statements, and nothing waits on a timer.
//
// Each caller's rows still succeed or fail on their own: when a shared INSERT fails (say one
// session's seq was taken by another process), each caller's rows are tried again alone.

type Insert<Row> = (rows: Row[]) => Promise<void>;
type Waiting<Row> = { rows: Row[]; resolve: () => void; reject: (error: unknown) => void };

export function groupCommit<Row>(insert: Insert<Row>): Insert<Row> {
  let waiting: Waiting<Row>[] = [];
  let writing = false;

  async function writeAll() {
    writing = true;
    while (waiting.length) {
      const batch = waiting;
      waiting = [];
      try {
        await insert(batch.flatMap((w) => w.rows));
        for (const w of batch) w.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else await Promise.all(batch.map((w) => insert(w.rows).then(w.resolve, w.reject)));
      }
    }
    writing = false;
  }

  return (rows) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ rows, resolve, reject });
      // Started after the current callbacks, so rows asked for in the same turn share the first INSERT.
      if (!writing) {
        writing = true;
        queueMicrotask(() => void writeAll());
      }
    });
}
