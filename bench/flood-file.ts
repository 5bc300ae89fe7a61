import { writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The text the terminal benchmarks `cat`: ~MB megabytes of numbered lines of 60–99 characters of
 * words, like a long log. Written as `bench.txt` in `dir`.
 */
export function writeFloodFile(dir: string, megabytes: number): { file: string; bytes: number; lines: number } {
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split(" ");
  const lines: string[] = [];
  for (let i = 0; i < 4096; i++) {
    let line = `${String(i).padStart(6, "0")} `;
    while (line.length < 60 + (i % 40)) line += `${words[(i * 7 + line.length) % words.length]} `;
    lines.push(line.trimEnd());
  }
  const block = `${lines.join("\n")}\n`;
  const repeats = Math.ceil((megabytes * 1e6) / block.length);
  const file = path.join(dir, "bench.txt");
  writeFileSync(file, block.repeat(repeats));
  return { file, bytes: block.length * repeats, lines: lines.length * repeats };
}
