import { describe, expect, it } from "vitest";
import { sequenceStateAt, type SequenceState } from "@/lib/terminal-plain-skip";
import { ScreenMirror, type ScreenSnapshot } from "./screen-mirror";

const COLS = 80;
const ROWS = 24;
const SCROLLBACK = 200;

function flood(lines: number, eol = "\r\n"): string {
  let text = "";
  for (let i = 0; i < lines; i++) text += `line ${i} ${"abcdefghij".repeat(i % 13)}${eol}`;
  return text;
}

function mirror(): ScreenMirror {
  return new ScreenMirror(COLS, ROWS, SCROLLBACK, () => {});
}

/** Writes output as the terminal session does: with the parser's state where it starts. */
function writer(screen: ScreenMirror) {
  let state: SequenceState = "ground";
  return (text: string) => {
    screen.write(text, state);
    state = sequenceStateAt(text, text.length, state);
  };
}

const snapshotOf = (screen: ScreenMirror) => new Promise<ScreenSnapshot>((resolve) => screen.snapshot(resolve));

// Feeds in small pieces and waits for each to be parsed, so the mirror never skips anything.
async function parsedExactly(chunks: string[]): Promise<ScreenSnapshot> {
  const screen = mirror();
  const write = writer(screen);
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 16 * 1024) {
      write(chunk.slice(i, i + 16 * 1024));
      await new Promise<void>((resolve) => screen.whenParsed(resolve));
    }
  }
  expect(screen.skippedChars).toBe(0);
  const snapshot = await snapshotOf(screen);
  screen.dispose();
  return snapshot;
}

async function parsedAtOnce(chunks: string[]): Promise<{ snapshot: ScreenSnapshot; skipped: number }> {
  const screen = mirror();
  const write = writer(screen);
  for (const chunk of chunks) write(chunk);
  const snapshot = await snapshotOf(screen);
  const skipped = screen.skippedChars;
  screen.dispose();
  return { snapshot, skipped };
}

describe("ScreenMirror", () => {
  it.each([
    [
      "a plain flood after a colored prompt",
      ["\x1b[1;32muser@host\x1b[0m:~$ cat log\r\n", flood(30_000), "\x1b[1;32muser@host\x1b[0m:~$ "],
    ],
    ["a color change in the middle of a flood", [flood(15_000), "\x1b[31m", flood(15_000), "\x1b[0mdone"]],
    ["a flood into a scroll region", ["\x1b[5;20r\x1b[10;1H", flood(30_000), "\x1b[r"]],
    ["a flood that ends mid-line", ["\x1b[2J\x1b[H", flood(30_000), "partial line without newline"]],
  ])("gives the same snapshot when it skips %s", async (_name, chunks) => {
    const exact = await parsedExactly(chunks);
    const fast = await parsedAtOnce(chunks);
    expect(fast.skipped).toBeGreaterThan(0);
    expect(fast.snapshot).toEqual(exact);
  });

  it("never cuts into an escape sequence begun before the queued output", async () => {
    // A read of the PTY ended inside "\x1b[31m": the mirror has parsed "\x1b[" when a plain flood
    // follows. Skipping from the flood's start would drop "31m", and the lines after would not be red.
    const chunks = ["\x1b[", `31mred\r\n${flood(30_000)}\x1b[0mdone`];
    const exact = await parsedExactly(chunks);
    const screen = mirror();
    const write = writer(screen);
    write(chunks[0]!);
    await new Promise<void>((resolve) => screen.whenParsed(resolve));
    write(chunks[1]!);
    const snapshot = await snapshotOf(screen);
    expect(screen.skippedChars).toBeGreaterThan(0);
    expect(snapshot).toEqual(exact);
    screen.dispose();
  });

  it("follows the parser's state across a feed that ends inside an escape sequence", async () => {
    // One write whose first feed (64K characters) ends between "\x1b" and "[31m"; the flood that
    // comes while the rest waits must not be skipped from the rest's start.
    const head = `${"x".repeat(64 * 1024 - 1)}\x1b[31mred\r\n`;
    const rest = `${flood(30_000)}\x1b[0mdone`;
    const exact = await parsedExactly([head, rest]);
    const screen = mirror();
    const write = writer(screen);
    write(head);
    // The first feed is parsed, and the rest waits for more output (FEED_DELAY_MS).
    while (screen.backlog > head.length - 64 * 1024) await new Promise((resolve) => setTimeout(resolve, 1));
    write(rest);
    const snapshot = await snapshotOf(screen);
    expect(screen.skippedChars).toBeGreaterThan(0);
    expect(snapshot).toEqual(exact);
    screen.dispose();
  });

  it("never skips output whose lines do not return the carriage", async () => {
    const chunks = [flood(30_000, "\n")];
    const fast = await parsedAtOnce(chunks);
    expect(fast.skipped).toBe(0);
  });

  it("applies resizes in order with the output", async () => {
    const screen = mirror();
    screen.write("x".repeat(100), "ground");
    screen.resize(120, 30);
    const snapshot = await snapshotOf(screen);
    expect(snapshot).toMatchObject({ cols: 120, rows: 30 });
    expect(snapshot.data).toContain("x".repeat(80));
    screen.dispose();
  });
});
