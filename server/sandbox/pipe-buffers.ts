import type net from "node:net";
import type { TlsWatch } from "./tls-watch";

/**
 * Stream buffers of the sandboxes' side of the proxy (bytes). Node's default of 16 KiB is
 * below one 64 KiB read, so each chunk of a download filled the writer's buffer, paused the
 * reader and resumed it on drain: a stop and restart per chunk. A buffer that holds several
 * reads lets the kernel's socket buffers do the pacing (bench/sandbox.ts measures it).
 */
export const PIPE_BUFFER_BYTES = 1024 * 1024;

/** How many read buffers a download may have in flight: one being written, one being read into. */
const READ_BUFFERS = 2;

/**
 * Reads a tunnel's downloads into PIPE_BUFFER_BYTES buffers kept for the connection and writes
 * them to `to`: fewer reads, writes and callbacks per byte than node's 64 KiB reads. A fresh buffer per read cost a page fault per 4 KiB on each
 * read (large allocations are new mappings), half of the proxy's CPU on a download.
 * A buffer whose write the kernel did not take at once stays referred to until that write is
 * done, so it goes back to the pool then; with none free, reading pauses, which is also the
 * back-pressure: at most READ_BUFFERS reads in flight.
 */
export function readInto(to: net.Socket, from: () => net.Socket, watch?: TlsWatch): net.OnReadOpts {
  const free: Uint8Array[] = [];
  let made = 0;
  let waiting = false;
  const release = (buffer: Uint8Array) => {
    free.push(buffer);
    if (!waiting) return;
    waiting = false;
    from().resume();
  };
  return {
    buffer: () => free.pop() ?? (made++, Buffer.allocUnsafe(PIPE_BUFFER_BYTES)),
    callback: (bytes, buffer) => {
      if (watch && !watch.done) watch.server(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
      let done = false;
      to.write(buffer.subarray(0, bytes), () => {
        if (!done) release(buffer);
        done = true;
      });
      // Taken by the kernel at once: the buffer is free for the next read already.
      if (!done && to.writableLength === 0) {
        done = true;
        free.push(buffer);
      }
      if (free.length > 0 || made < READ_BUFFERS) return true;
      waiting = true;
      return false;
    },
  };
}
