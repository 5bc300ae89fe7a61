// Find in files through Tandem's search service (the code path of the Search panel:
// findInFiles → rg --json → parsed, grouped, batched) against raw ripgrep with the same filters
// printing plain text, on the project's own node_modules (tens of thousands of files), in the same
// run. Run with `npm run bench:find`. Prints medians and ratios for the time to the first result
// and to all results; exits non-zero when a ratio is over the target.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { findQuerySchema, type FindQueryInput } from "@/lib/search-schemas";
import { findInFiles } from "@/server/services/find-in-files";
import { RG_BASE_ARGS } from "@/server/workspace/ripgrep";

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "node_modules");
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGET = 1.3;

type Timing = { first: number; all: number; matches: number };

/** Raw rg: time to its first byte of output and to its exit, output drained as a reader would. */
function rawRg(query: FindQueryInput): Promise<Timing> {
  const args = [
    ...RG_BASE_ARGS,
    query.matchCase ? "--case-sensitive" : "--ignore-case",
    ...(query.isRegex ? [] : ["--fixed-strings"]),
    "--line-number",
    "--regexp",
    query.pattern,
  ];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let first = Number.NaN;
    let lines = 0;
    const child = spawn(rgPath, args, { cwd: CORPUS, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", (chunk: Buffer) => {
      if (Number.isNaN(first)) first = performance.now() - start;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.on("error", reject);
    child.on("close", () => resolve({ first, all: performance.now() - start, matches: lines }));
  });
}

async function tandem(query: FindQueryInput): Promise<Timing> {
  const start = performance.now();
  let first = Number.NaN;
  let matches = 0;
  for await (const event of findInFiles(CORPUS, findQuerySchema.parse(query), {
    signal: new AbortController().signal,
  })) {
    if (event.type === "files" && Number.isNaN(first)) first = performance.now() - start;
    if (event.type === "done") matches = event.matches;
    if (event.type === "error") throw new Error(event.message);
  }
  return { first, all: performance.now() - start, matches };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => (Number.isNaN(x) ? "  —  " : `${x.toFixed(0).padStart(5)} ms`);

async function main() {
  const scenarios: { name: string; query: FindQueryInput; first: boolean }[] = [
    { name: "literal, some hundred matches", query: { pattern: "readFileSync" }, first: true },
    {
      name: "regex, case-sensitive",
      query: { pattern: "create[A-Z]\\w+Server", isRegex: true, matchCase: true },
      first: true,
    },
    { name: "no match (whole scan)", query: { pattern: "tandem-bench-no-such-text" }, first: false },
  ];
  console.log(`find in files on ${CORPUS} (${RUNS} runs each, medians; target ≤ ${TARGET}x raw rg)\n`);
  let missed = false;
  for (const scenario of scenarios) {
    await rawRg(scenario.query); // warm the page cache for both
    const raw: Timing[] = [];
    const ours: Timing[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternate, so neither side always runs on the warmer cache.
      if (i % 2 === 0) {
        raw.push(await rawRg(scenario.query));
        ours.push(await tandem(scenario.query));
      } else {
        ours.push(await tandem(scenario.query));
        raw.push(await rawRg(scenario.query));
      }
    }
    const rows: [string, number, number][] = [
      ["all results", median(ours.map((t) => t.all)), median(raw.map((t) => t.all))],
    ];
    if (scenario.first)
      rows.unshift(["first result", median(ours.map((t) => t.first)), median(raw.map((t) => t.first))]);
    console.log(
      `${scenario.name}: ${JSON.stringify(scenario.query.pattern)}, ${ours[0]!.matches} matches (rg printed ${raw[0]!.matches} lines)`,
    );
    for (const [what, tandemMs, rgMs] of rows) {
      const ratio = tandemMs / rgMs;
      const over = ratio > TARGET;
      missed ||= over;
      console.log(
        `  ${what.padEnd(13)} tandem ${ms(tandemMs)}   rg ${ms(rgMs)}   ratio ${ratio.toFixed(2)}x${over ? `  OVER ${TARGET}x` : ""}`,
      );
    }
  }
  if (missed) process.exitCode = 1;
}

await main();
