import { plainSkipAfter, type SequenceState } from "@/lib/terminal-plain-skip";

/** Above this much waiting output (and every this much more), look for plain text to leave out. */
const COMPACT_ABOVE_CHARS = 512 * 1024;

export interface BacklogSize {
  /** The client's scrollback. */
  scrollback: number;
  /** The most rows the client's screen may have. */
  rows: number;
}

/**
 * Output that waits for one client while it is a window behind. A flood's plain text that would
 * scroll out of the client's scrollback before it could be seen is left out as it waits (as the
 * screen mirror and the browser's flood skipper do, lib/terminal-plain-skip.ts). So `cat big.log`
 * costs a slow client, and its link, about one scrollback per window rather than every byte, and
 * the shell runs on at the PTY's speed instead of the slowest browser's.
 */
export class OutputBacklog {
  private parts: string[] = [];
  private compactAt = COMPACT_ABOVE_CHARS;
  /** The parser's state where the backlog starts: text is left out only from plain text. */
  private startState: SequenceState = "ground";
  /** Whether everything waiting is plain ASCII (no C1 controls to look for). */
  private ascii = true;
  chars = 0;
  /** Characters left out so far, for the bench and tests. */
  skippedChars = 0;

  constructor(private readonly size: BacklogSize) {}

  get empty(): boolean {
    return this.parts.length === 0;
  }

  /** Adds output; `stateBefore` is the parser's state after all output before it; `ascii` when the text is known to be ASCII. */
  push(text: string, stateBefore: SequenceState, ascii = false): void {
    if (this.parts.length === 0) {
      this.startState = stateBefore;
      this.ascii = true;
    }
    this.ascii &&= ascii;
    this.parts.push(text);
    this.chars += text.length;
    if (this.chars > this.compactAt) this.compact();
  }

  /** Everything waiting, in order, and an empty backlog. */
  take(): string {
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    this.chars = 0;
    this.compactAt = COMPACT_ABOVE_CHARS;
    return text;
  }

  private compact(): void {
    const text = this.parts.join("");
    const { scrollback, rows } = this.size;
    const skip = plainSkipAfter(text, scrollback + rows, rows, this.startState, this.ascii);
    if (skip) {
      this.parts = [text.slice(0, skip.from), text.slice(skip.to)];
      this.chars -= skip.to - skip.from;
      this.skippedChars += skip.to - skip.from;
    } else {
      this.parts = [text];
    }
    // At most one scan per COMPACT_ABOVE_CHARS of new output, so waiting stays linear.
    this.compactAt = this.chars + COMPACT_ABOVE_CHARS;
  }
}
