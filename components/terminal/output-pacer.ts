/**
 * Output during a flood is gathered and handed to xterm.js at most once per this interval.
 * xterm.js redraws after each write it parses, up to once per animation frame (60 per second),
 * and with the DOM renderer that redraw (style, layout, raster) is most of the browser's CPU
 * during `cat big.log`. Drawing a flood about 12 times a second still shows it moving, and leaves
 * that CPU to the shell, the server and the parser. Larger batches also let the flood skipper
 * (flood-skipper.ts) leave out more: it keeps about one scrollback per batch. The server's
 * flow-control window must hold an interval of output (server/terminal/terminal-session.ts).
 */
export const FLOOD_WRITE_INTERVAL_MS = 80;
/** More output than this within one interval is a flood; less (typing, prompts) is written at once. */
export const FLOOD_BYTES = 16 * 1024;
/**
 * After the person types, output is written as it comes for this long: the answer to Ctrl-C or
 * Enter during a flood shows as soon as it is parsed, not one interval later.
 */
export const AFTER_INPUT_MS = 300;

export interface OutputPacerOptions {
  /** Writes a batch to the terminal and calls back once it is parsed. */
  write(bytes: Uint8Array, parsed: () => void): void;
  /** After a batch is parsed, with its size. */
  onParsed(bytes: number): void;
}

/** Paces one connection's output into xterm.js: at once while it trickles, batched while it floods. */
export class OutputPacer {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private lastWriteBytes = 0;
  private lastInputAt = Number.NEGATIVE_INFINITY;
  private disposed = false;

  constructor(private readonly options: OutputPacerOptions) {}

  push(bytes: Uint8Array): void {
    if (this.disposed) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.timer !== undefined) return;
    const now = performance.now();
    const sinceLast = now - this.lastWriteAt;
    const flooding = this.lastWriteBytes + this.pendingBytes >= FLOOD_BYTES;
    if (!flooding || sinceLast >= FLOOD_WRITE_INTERVAL_MS || now - this.lastInputAt < AFTER_INPUT_MS) this.flush();
    else this.timer = setTimeout(() => this.flush(), FLOOD_WRITE_INTERVAL_MS - sinceLast);
  }

  /** The person typed: write what is waiting, and what follows as it comes, for a while. */
  inputSent(): void {
    this.lastInputAt = performance.now();
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.flush();
  }

  /** Drops output not yet written: the connection it came from is gone. */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.pending = [];
  }

  private flush(): void {
    this.timer = undefined;
    if (this.disposed || this.pendingBytes === 0) return;
    const batch = this.pending.length === 1 ? this.pending[0]! : concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    // Output within one interval of a large write belongs to the same flood.
    this.lastWriteBytes = batch.length;
    this.lastWriteAt = performance.now();
    this.options.write(batch, () => {
      if (!this.disposed) this.options.onParsed(batch.length);
    });
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
