import { createRequire } from "node:module";
import type { Terminal as HeadlessTerminal } from "@xterm/headless";
import type { SerializeAddon as SerializeAddonType } from "@xterm/addon-serialize";
import { plainSkipAfter, sequenceStateAt, type SequenceState } from "@/lib/terminal-plain-skip";

// These packages are CommonJS without named-export hints, so Node's ESM loader cannot bind them.
const require = createRequire(import.meta.url);
const { Terminal } = require("@xterm/headless") as typeof import("@xterm/headless");
const { SerializeAddon } = require("@xterm/addon-serialize") as typeof import("@xterm/addon-serialize");

export interface ScreenSnapshot {
  data: string;
  cols: number;
  rows: number;
}

/** Output to parse, or an action to run once all output before it is parsed. */
type Step = string | (() => void);

const FEED_CHARS = 64 * 1024;
/**
 * Output waits this long before it is parsed. Parsing on arrival would throttle the PTY to the
 * parser's speed (they share the event loop) and leave nothing queued to skip.
 */
const FEED_DELAY_MS = 25;
/** Above this much unparsed output, try to skip plain text that would scroll out anyway. */
const COMPACT_ABOVE_CHARS = 512 * 1024;

/**
 * A server-side copy of the terminal's screen and scrollback, fed with the PTY output, so a client
 * that (re)connects gets the screen as it is. Output, resizes and snapshots are applied in order.
 */
export class ScreenMirror {
  private readonly terminal: HeadlessTerminal;
  private readonly serializer: SerializeAddonType;
  private readonly steps: Step[] = [];
  private queuedChars = 0;
  private feedingChars = 0;
  private compactAt = COMPACT_ABOVE_CHARS;
  /** Resizes and snapshots waiting in the queue. */
  private queuedActions = 0;
  /**
   * The parser's state where the output queued after the last action starts, and whether all of
   * it is ASCII: compaction skips text only from plain text, never from inside a sequence that
   * began before it (an escape cut by the PTY's reads or by a feed of FEED_CHARS).
   */
  private tailState: SequenceState = "ground";
  private tailAscii = true;
  private tailChars = 0;
  private feedTimer: NodeJS.Timeout | undefined;
  /** Whether the last look at a long queue found something to skip. */
  private skipping = true;
  private disposed = false;
  /** Characters skipped by compaction, for the bench and tests. */
  skippedChars = 0;

  constructor(
    cols: number,
    rows: number,
    private readonly scrollback: number,
    private readonly onProgress: () => void,
  ) {
    this.terminal = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.terminal.loadAddon(this.serializer as unknown as Parameters<HeadlessTerminal["loadAddon"]>[0]);
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /** Characters received but not parsed yet. */
  get backlog(): number {
    return this.queuedChars + this.feedingChars;
  }

  /** Queues output; `stateBefore` is the parser's state after all output before it; `ascii` when the text is known to be ASCII. */
  write(data: string, stateBefore: SequenceState, ascii = false): void {
    if (this.disposed) return;
    if (this.tailChars === 0) {
      this.tailState = stateBefore;
      this.tailAscii = true;
    }
    this.tailAscii &&= ascii;
    this.tailChars += data.length;
    this.steps.push(data);
    this.queuedChars += data.length;
    if (this.queuedChars > this.compactAt) this.compact();
    if (this.feedingChars === 0) this.feedTimer ??= setTimeout(() => this.pump(), FEED_DELAY_MS);
  }

  resize(cols: number, rows: number): void {
    this.whenParsed(() => this.terminal.resize(cols, rows));
  }

  /** Calls back with the screen as of everything written so far, and nothing written after. */
  snapshot(callback: (snapshot: ScreenSnapshot) => void): void {
    this.whenParsed(() =>
      callback({ data: this.serializer.serialize({ scrollback: this.scrollback }), cols: this.cols, rows: this.rows }),
    );
  }

  whenParsed(action: () => void): void {
    this.steps.push(action);
    this.queuedActions++;
    this.tailChars = 0;
    this.pump();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.feedTimer);
    this.steps.length = 0;
    this.terminal.dispose();
  }

  private pump(): void {
    clearTimeout(this.feedTimer);
    this.feedTimer = undefined;
    while (!this.disposed && this.feedingChars === 0 && this.steps.length > 0) {
      const step = this.steps[0]!;
      if (typeof step !== "string") {
        this.steps.shift();
        this.queuedActions--;
        step();
        continue;
      }
      let data = "";
      while (typeof this.steps[0] === "string" && data.length < FEED_CHARS) {
        // At most FEED_CHARS at a time: a long string (what compaction leaves) parsed whole would
        // keep the mirror busy with text that the next compaction could have skipped.
        const next = this.steps[0];
        const take = FEED_CHARS - data.length;
        if (next.length <= take) data += this.steps.shift();
        else {
          data += next.slice(0, take);
          this.steps[0] = next.slice(take);
        }
      }
      this.queuedChars -= data.length;
      this.compactAt = Math.min(this.compactAt, this.queuedChars + COMPACT_ABOVE_CHARS);
      if (this.queuedActions === 0) {
        // The feed came from the head of the tail: what remains starts where this feed leaves the parser.
        this.tailState = sequenceStateAt(data, data.length, this.tailState, this.tailAscii);
        this.tailChars -= data.length;
      }
      this.feedingChars = data.length;
      this.terminal.write(data, () => {
        this.feedingChars = 0;
        // While little is queued, wait for more: a flood may yet make it skippable. A queue that
        // stays long (output full of escapes) or a waiting snapshot is parsed at full speed.
        const waiting = this.steps.some((step) => typeof step !== "string");
        if (waiting || (!this.skipping && this.queuedChars >= COMPACT_ABOVE_CHARS)) this.pump();
        else if (this.steps.length > 0) this.feedTimer ??= setTimeout(() => this.pump(), FEED_DELAY_MS);
        this.onProgress();
      });
    }
  }

  /**
   * Drops the oldest queued output when it is plain text (no escape sequences or other state
   * changes) and is followed by enough full lines to push it out of the scrollback: parsing it
   * would not change the final screen. A flood like `cat big.log` then costs the mirror almost
   * nothing, which keeps it from becoming the bottleneck between the PTY and the browser.
   */
  private compact(): void {
    // At most one scan per COMPACT_ABOVE_CHARS of new output, so skipping stays linear.
    this.compactAt = this.queuedChars + COMPACT_ABOVE_CHARS;
    let first = this.steps.length;
    while (first > 0 && typeof this.steps[first - 1] === "string") first--;
    if (first === this.steps.length) return;
    const text = (this.steps.slice(first) as string[]).join("");
    const skip = plainSkipAfter(text, this.scrollback + this.rows, this.rows, this.tailState, this.tailAscii);
    this.skipping = skip !== null;
    if (!skip) return;
    this.steps.splice(first, this.steps.length - first, text.slice(0, skip.from) + text.slice(skip.to));
    this.queuedChars -= skip.to - skip.from;
    this.tailChars -= skip.to - skip.from;
    this.skippedChars += skip.to - skip.from;
    this.compactAt = this.queuedChars + COMPACT_ABOVE_CHARS;
  }
}
