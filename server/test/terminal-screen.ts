// For tests of what skips a flood's plain text (components/terminal/flood-skipper.ts,
// server/terminal/output-backlog.ts): the screen a headless xterm.js ends with.
import { createRequire } from "node:module";

// CommonJS packages without named-export hints, as in server/terminal/screen-mirror.ts.
const require = createRequire(import.meta.url);
const { Terminal } = require("@xterm/headless") as typeof import("@xterm/headless");
const { SerializeAddon } = require("@xterm/addon-serialize") as typeof import("@xterm/addon-serialize");

export interface ScreenShape {
  cols: number;
  rows: number;
  scrollback: number;
}

/** `lines` lines of varied length with a non-ASCII character, numbered from `from`. */
export function flood(lines: number, from = 0): string {
  let text = "";
  for (let i = from; i < from + lines; i++) text += `line ${i} é ${"abcdefghij".repeat(i % 13)}\r\n`;
  return text;
}

/** What a person sees and can scroll back to: screen, scrollback, colours and the cursor. */
export async function screenOf(shape: ScreenShape, writes: Array<string | Uint8Array>): Promise<string> {
  const terminal = new Terminal({ ...shape, allowProposedApi: true });
  const serializer = new SerializeAddon();
  terminal.loadAddon(serializer as unknown as Parameters<typeof terminal.loadAddon>[0]);
  for (const data of writes) terminal.write(data);
  await new Promise<void>((resolve) => terminal.write("", resolve));
  const { cursorX, cursorY, length } = terminal.buffer.active;
  const screen = `${serializer.serialize()}\ncursor ${cursorX},${cursorY} lines ${length}`;
  terminal.dispose();
  return screen;
}
