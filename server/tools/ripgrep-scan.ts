import type { ChildProcess } from "node:child_process";
import type net from "node:net";
import { spawnRipgrep } from "@/server/workspace/ripgrep";
import { prepareSocketPair, takeSocketPair } from "./socket-pair";

/** Room kept free in the buffer for each read of rg's output. */
const READ_ROOM = 64 * 1024;
const FIRST_BUFFER = 1024 * 1024;

export interface RgScanOptions {
  /** The workspace searched, rg's working directory: rg is confined to it (spawnRipgrep). */
  root: string;
  signal: AbortSignal;
  /**
   * Each output line as rg prints it (UTF-8 bytes, no newline), valid only during the call.
   * Returning false holds rg back (it blocks on a full socket) until `resume` is called.
   */
  onLine(line: Buffer): boolean;
}

export interface RgScan {
  /**
   * Settles when rg has exited and all its output has been handed to `onLine` (killed included);
   * rejects with what `onLine` threw, if it did (rg is then killed).
   */
  exited: Promise<{ exitCode: number | null; stderr: string }>;
  /** Goes on reading after `onLine` returned false. */
  resume(): void;
  kill(): void;
}

/**
 * Runs the bundled ripgrep and hands its output over line by line, synchronously as it arrives:
 * for searches whose output runs to a hundred megabytes (rg --json prints the megabyte-long lines
 * of minified files whole). A child's stdout pipe allocates a buffer per read, and collecting
 * those cost more than the parsing; so rg writes into a Unix socket (see socket-pair.ts) that is
 * read straight into one growing buffer. A line spanning many reads arrives whole,
 * in place, without being joined. Aborting the signal or `kill` stops rg; no line comes after.
 */
export function scanRipgrep(args: string[], options: RgScanOptions): RgScan {
  let child: ChildProcess | null = null;
  let reader: net.Socket | null = null;
  let stopped = false;
  let held = false;
  let failure: unknown = null;
  const kill = () => {
    stopped = true;
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    reader?.destroy();
  };
  options.signal.addEventListener("abort", kill, { once: true });

  // Output so far sits in store[start, end); store[scan, end) holds no newline.
  let store = Buffer.allocUnsafe(FIRST_BUFFER);
  let start = 0;
  let scan = 0;
  let end = 0;
  const received = (nread: number, buffer: Uint8Array) => {
    if (buffer.buffer !== store.buffer) {
      // The pair's first read went to its scratch buffer, before this scan took it.
      store.set(buffer.subarray(0, nread), end);
    }
    end += nread;
    const filled = store.subarray(0, end);
    for (let newline = filled.indexOf(10, scan); newline !== -1 && !stopped; newline = filled.indexOf(10, start)) {
      const line = store.subarray(start, newline);
      start = newline + 1;
      try {
        if (options.onLine(line) === false) held = true;
      } catch (error) {
        // Thrown in a socket callback it would take the server down: `exited` rejects with it.
        failure = error;
        kill();
      }
    }
    scan = end;
    return !held;
  };
  const nextRoom = () => {
    if (store.length - end < READ_ROOM) {
      const partial = end - start;
      if (partial + READ_ROOM <= store.length / 2) {
        store.copyWithin(0, start, end);
      } else {
        const bigger = Buffer.allocUnsafe(Math.max(store.length * 2, partial + READ_ROOM));
        store.copy(bigger, 0, start, end);
        store = bigger;
      }
      scan -= start;
      end = partial;
      start = 0;
    }
    return store.subarray(end);
  };

  const exited = (async () => {
    let stderr = "";
    try {
      const pair = await takeSocketPair();
      pair.into.room = nextRoom;
      pair.into.received = received;
      reader = pair.reader;
      if (stopped) {
        pair.writer.destroy();
        kill();
        return { exitCode: null, stderr };
      }
      // rg is the server's own reader, not a project process: the server builds its arguments (no
      // shell, no project code, symlinks not followed), it opens no connection. So it runs beside
      // the server, not in the sandbox, confined by Landlock to the tree (spawnRipgrep says why).
      const rg = spawnRipgrep(args, { root: options.root, stdio: ["ignore", pair.writer, "pipe"] });
      child = rg;
      pair.writer.destroy(); // rg holds its own copy: the reader ends when rg exits
      rg.stderr!.setEncoding("utf8");
      rg.stderr!.on("data", (chunk: string) => {
        if (stderr.length < 64 * 1024) stderr += chunk;
      });
      const drained = new Promise<void>((resolve) => pair.reader.once("close", () => resolve()));
      const exitCode = await new Promise<number | null>((resolve) => {
        rg.once("error", (error) => {
          stderr += error.message;
          pair.reader.destroy();
          resolve(null);
        });
        rg.once("close", (code) => resolve(code));
      });
      await drained;
      if (failure) throw failure;
      return { exitCode, stderr };
    } catch (error) {
      if (failure) throw failure;
      return { exitCode: null, stderr: stderr + (error instanceof Error ? error.message : String(error)) };
    } finally {
      options.signal.removeEventListener("abort", kill);
      kill();
      prepareSocketPair(); // for the next search, now that this one no longer needs the processor
    }
  })();

  const resume = () => {
    held = false;
    if (!stopped) reader?.resume();
  };
  return { exited, resume, kill };
}
