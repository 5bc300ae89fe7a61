import { plainSkipAfter, sequenceStateAt, type SequenceState } from "@/lib/terminal-plain-skip";

/** Below this, output is written whole: too short to hold a scrollback's worth of lines. */
const SKIP_ABOVE_CHARS = 64 * 1024;

export interface ScreenSize {
  rows: number;
  scrollback: number;
}

/**
 * Turns one connection's output bytes into the text xterm.js parses, leaving out a flood's plain
 * text that would scroll out of the scrollback before anyone could see it (lib/terminal-plain-skip):
 * the screen and the scrollback end up the same, and parsing, the browser's largest cost during
 * `cat big.log`, shrinks to about one scrollback per batch. Everything behind a flood, such as the
 * prompt after Ctrl-C, then shows after that much parsing rather than after all that was in flight.
 */
export class FloodSkipper {
  private readonly decoder = new TextDecoder();
  /** The parser's state after everything handed out so far. */
  private state: SequenceState = "ground";
  /** Characters left out so far, for tests. */
  skippedChars = 0;

  constructor(private readonly size: () => ScreenSize) {}

  text(bytes: Uint8Array): string {
    let text = this.decoder.decode(bytes, { stream: true });
    if (text.length >= SKIP_ABOVE_CHARS) {
      const { rows, scrollback } = this.size();
      const skip = plainSkipAfter(text, scrollback + rows, rows, this.state);
      if (skip) {
        text = text.slice(0, skip.from) + text.slice(skip.to);
        this.skippedChars += skip.to - skip.from;
      }
    }
    this.state = sequenceStateAt(text, text.length, this.state);
    return text;
  }
}
