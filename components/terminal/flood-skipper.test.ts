import { describe, expect, it } from "vitest";
import { flood, screenOf as screenIn } from "@/server/test/terminal-screen";
import { FloodSkipper } from "./flood-skipper";

const COLS = 80;
const ROWS = 24;
const SCROLLBACK = 500;
const screenOf = (writes: Array<string | Uint8Array>) =>
  screenIn({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK }, writes);

/** The output cut into batches of `size` bytes, as the pacer hands them over (cuts fall anywhere, even inside a character). */
function batches(output: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(output);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function throughSkipper(chunks: Uint8Array[]): { texts: string[]; skipped: number } {
  const skipper = new FloodSkipper(() => ({ rows: ROWS, scrollback: SCROLLBACK }));
  const texts = chunks.map((chunk) => skipper.text(chunk));
  return { texts, skipped: skipper.skippedChars };
}

describe("FloodSkipper", () => {
  it.each([
    [
      "a plain flood after a coloured prompt",
      `\x1b[1;32muser@host\x1b[0m:~$ cat log\r\n${flood(40_000)}\x1b[1;32muser@host\x1b[0m:~$ `,
    ],
    ["a colour change in the middle of a flood", `${flood(20_000)}\x1b[31m${flood(20_000, 20_000)}\x1b[0mdone`],
    ["a flood into a scroll region", `\x1b[5;20r\x1b[10;1H${flood(40_000)}\x1b[r`],
    ["a flood that ends mid-line", `\x1b[2J\x1b[H${flood(40_000)}partial line without newline`],
  ])("leaves the screen and scrollback as parsing everything would, for %s", async (_name, output) => {
    const { texts, skipped } = throughSkipper(batches(output, 256 * 1024));
    expect(skipped).toBeGreaterThan(output.length / 2);
    expect(await screenOf(texts)).toBe(await screenOf([output]));
  });

  it("does not cut into an escape sequence that a batch leaves open", async () => {
    // Each batch ends inside a colour sequence that the next batch finishes.
    const parts = [flood(8_000), "\x1b[3", `1m${flood(8_000, 8_000)}\x1b[0;3`, `2m${flood(8_000, 16_000)}\x1b[0m$ `];
    const chunks = [
      new TextEncoder().encode(parts[0]! + parts[1]!),
      new TextEncoder().encode(parts[2]!),
      new TextEncoder().encode(parts[3]!),
    ];
    const { texts, skipped } = throughSkipper(chunks);
    expect(texts[1]!.startsWith("1m")).toBe(true);
    expect(texts[2]!.startsWith("2m")).toBe(true);
    expect(skipped).toBeGreaterThan(0);
    expect(await screenOf(texts)).toBe(await screenOf([parts.join("")]));
  });

  it("does not skip inside a title that a batch leaves open", () => {
    const chunks = batches(`$ \x1b]0;${flood(8_000)}\x07${flood(100)}`, 1024 * 1024);
    expect(throughSkipper(chunks).skipped).toBe(0);
  });

  it("writes typing and prompts whole", () => {
    const { texts, skipped } = throughSkipper(batches("ls -la\r\n\x1b[32mtotal 0\x1b[0m\r\n$ ", 4));
    expect(texts.join("")).toBe("ls -la\r\n\x1b[32mtotal 0\x1b[0m\r\n$ ");
    expect(skipped).toBe(0);
  });
});
