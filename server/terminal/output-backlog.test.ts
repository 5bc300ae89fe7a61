import { describe, expect, it } from "vitest";
import type { SequenceState } from "@/lib/terminal-plain-skip";
import { flood, screenOf as screenIn } from "@/server/test/terminal-screen";
import { OutputBacklog } from "./output-backlog";

const SHAPE = { cols: 80, rows: 24, scrollback: 500 };
const screenOf = (writes: string[]) => screenIn(SHAPE, writes);

/** What a client parses: what it had before, then the backlog of `output` pushed in PTY-sized pieces. */
function throughBacklog(output: string, stateBefore: SequenceState = "ground") {
  const backlog = new OutputBacklog({ scrollback: SHAPE.scrollback, rows: SHAPE.rows });
  for (let i = 0; i < output.length; i += 4096)
    backlog.push(output.slice(i, i + 4096), i === 0 ? stateBefore : "unknown");
  const chars = backlog.chars;
  return { text: backlog.take(), chars, skipped: backlog.skippedChars, empty: backlog.empty };
}

describe("OutputBacklog", () => {
  it.each([
    [
      "a plain flood after a coloured prompt",
      `\x1b[1;32muser@host\x1b[0m:~$ cat log\r\n${flood(40_000)}\x1b[1;32muser@host\x1b[0m:~$ `,
    ],
    ["a colour change in the middle of a flood", `${flood(20_000)}\x1b[31m${flood(20_000, 20_000)}\x1b[0mdone`],
    ["a flood into a scroll region", `\x1b[5;20r\x1b[10;1H${flood(40_000)}\x1b[r`],
  ])("leaves out most of %s, and the screen and scrollback end as parsing everything would", async (_name, output) => {
    const { text, chars, skipped, empty } = throughBacklog(output);
    expect(skipped).toBeGreaterThan(output.length / 2);
    expect(chars).toBe(text.length);
    expect(empty).toBe(true);
    expect(await screenOf([text])).toBe(await screenOf([output]));
  });

  it("leaves nothing out of a backlog that starts inside a title the client has begun to parse", async () => {
    const before = "$ \x1b]0;";
    const output = `${flood(8_000)}\x07${flood(100)}$ `;
    const { text, skipped } = throughBacklog(output, "osc");
    expect(skipped).toBe(0);
    expect(await screenOf([before, text])).toBe(await screenOf([before + output]));
  });

  it("leaves nothing out after an 8-bit control sequence (C1), which plain ASCII cannot hold", () => {
    const backlog = new OutputBacklog({ scrollback: SHAPE.scrollback, rows: SHAPE.rows });
    // An 8-bit OSC (U+009D) that the flood's text goes on inside, as far as a parser is concerned.
    const output = `\u009d0;${flood(8_000)}`;
    for (let i = 0; i < output.length; i += 4096) backlog.push(output.slice(i, i + 4096), "ground", false);
    expect(backlog.take()).toBe(output);
    expect(backlog.skippedChars).toBe(0);
  });

  it("keeps output with escapes on every line whole", () => {
    let output = "";
    for (let i = 0; i < 40_000; i++) output += `\x1b[1mbold ${i}\x1b[0m\r\n`;
    expect(throughBacklog(output)).toMatchObject({ text: output, skipped: 0 });
  });
});
