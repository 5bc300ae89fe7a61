import { describe, expect, it } from "vitest";
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

const snapshotOf = (screen: ScreenMirror) =>
  new Promise<ScreenSnapshot>((resolve) => screen.snapshot(resolve));

// Feeds in small pieces and waits for each to be parsed, so the mirror never skips anything.
async function parsedExactly(chunks: string[]): Promise<ScreenSnapshot> {
  const screen = mirror();
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 16 * 1024) {
      screen.write(chunk.slice(i, i + 16 * 1024));
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
  for (const chunk of chunks) screen.write(chunk);
  const snapshot = await snapshotOf(screen);
  const skipped = screen.skippedChars;
  screen.dispose();
  return { snapshot, skipped };
}

describe("ScreenMirror", () => {
  it.each([
    ["a plain flood after a colored prompt", ["\x1b[1;32muser@host\x1b[0m:~$ cat log\r\n", flood(30_000), "\x1b[1;32muser@host\x1b[0m:~$ "]],
    ["a color change in the middle of a flood", [flood(15_000), "\x1b[31m", flood(15_000), "\x1b[0mdone"]],
    ["a flood into a scroll region", ["\x1b[5;20r\x1b[10;1H", flood(30_000), "\x1b[r"]],
    ["a flood that ends mid-line", ["\x1b[2J\x1b[H", flood(30_000), "partial line without newline"]],
  ])("gives the same snapshot when it skips %s", async (_name, chunks) => {
    const exact = await parsedExactly(chunks);
    const fast = await parsedAtOnce(chunks);
    expect(fast.skipped).toBeGreaterThan(0);
    expect(fast.snapshot).toEqual(exact);
  });

  it("never skips output whose lines do not return the carriage", async () => {
    const chunks = [flood(30_000, "\n")];
    const fast = await parsedAtOnce(chunks);
    expect(fast.skipped).toBe(0);
  });

  it("applies resizes in order with the output", async () => {
    const screen = mirror();
    screen.write("x".repeat(100));
    screen.resize(120, 30);
    const snapshot = await snapshotOf(screen);
    expect(snapshot).toMatchObject({ cols: 120, rows: 30 });
    expect(snapshot.data).toContain("x".repeat(80));
    screen.dispose();
  });
});
