const DEFAULT_BATCH = 50;

/** Splits rows into batches and hands each to `send`; returns how many batches were sent. */
function runExport(rows, send, options = {}) {
  const size = 200;
  let sent = 0;
  for (let i = 0; i < rows.length; i += size) {
    send(rows.slice(i, i + size));
    sent += 1;
  }
  return sent;
}

module.exports = { runExport };
