import { openWorkspace } from "@/server/workspace";

// A child process for server/workspace/atomic-write-kill.test.ts: rewrites one big file through the
// workspace's write path, generation after generation, printing each generation once it is written,
// until it is killed. Usage: node --import tsx server/test/workspace-writer.ts <root> <first generation>

export const FILE = "big.txt";
const BODY_LINES = 60_000; // ~4 MiB

/** Generation `n` of the file: a header, lines that all name `n`, a trailer. */
export function generation(n: number): string {
  const line = `generation ${String(n).padStart(8, "0")} ${"x".repeat(48)}\n`;
  return `begin ${n}\n${line.repeat(BODY_LINES)}end ${n}\n`;
}

async function main() {
  const [root, first] = process.argv.slice(2);
  const workspace = await openWorkspace(root!);
  for (let n = Number(first); ; n++) {
    await workspace.write(FILE, generation(n));
    process.stdout.write(`wrote ${n}\n`);
  }
}

if (process.argv[1]?.endsWith("workspace-writer.ts")) await main();
