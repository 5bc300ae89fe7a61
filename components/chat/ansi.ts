// Terminal output as coloured runs of text: SGR colour and bold codes become classes, every other
// escape sequence is dropped. Enough for test runners and compilers; the real terminal is xterm.

export type AnsiRun = { text: string; fg: string | null; bold: boolean };

const NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\r(?!\n)/g;

export function parseAnsi(input: string): AnsiRun[] {
  const runs: AnsiRun[] = [];
  let fg: string | null = null;
  let bold = false;
  let last = 0;
  const push = (text: string) => {
    if (!text) return;
    const prev = runs.at(-1);
    if (prev && prev.fg === fg && prev.bold === bold) prev.text += text;
    else runs.push({ text, fg, bold });
  };
  for (const match of input.matchAll(ESCAPE)) {
    push(input.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] !== "m") continue;
    for (const part of (match[1] || "0").split(";").map(Number)) {
      if (part === 0) (fg = null), (bold = false);
      else if (part === 1) bold = true;
      else if (part === 22) bold = false;
      else if (part === 39) fg = null;
      else if (part >= 30 && part <= 37) fg = NAMES[part - 30]!;
      else if (part >= 90 && part <= 97) fg = `bright-${NAMES[part - 90]}`;
    }
  }
  push(input.slice(last));
  return runs;
}
