// The grep and glob tools against the commands they wrap, on the project's own node_modules.
// Run with `npm run bench:search`. Prints medians and ratios; exits non-zero when a target is missed.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { Workspace } from "@/server/workspace";
import type { ShellSession } from "@/server/workspace/shell-session";
import type { Tool, ToolContext } from "@/server/tools/define-tool";
import { globTool } from "@/server/tools/glob";
import { grepTool } from "@/server/tools/grep";
import { createReadTracker } from "@/server/tools/read-tracker";
import { runTool } from "@/server/tools/registry";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CORPUS = "node_modules";
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const GREP_TARGET = 1.2;
const GLOB_TARGET = 1.5;

interface Scenario {
  name: string;
  target: number;
  tool: () => Promise<unknown>;
  rg: string[];
  grep?: string[];
}

/** Runs a command with its output drained (as a pipe to a reader would be) and returns ms. */
function timeCommand(file: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(file, args, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", () => undefined);
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - start));
  });
}

async function timeTool(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const outputs = mkdtempSync(path.join(tmpdir(), "tandem-bench-search-"));
  const workspace = await Workspace.open(ROOT);
  let saved = 0;
  const ctx: ToolContext = {
    workspace,
    projectId: "bench",
    sessionId: "bench",
    userId: "bench",
    signal: new AbortController().signal,
    emit: () => undefined,
    reads: createReadTracker(),
    shell: {} as ShellSession,
    // Cut output is saved outside the repository.
    outputs: {
      async save(_name, content) {
        const file = path.join(outputs, `out-${++saved}.txt`);
        writeFileSync(file, content);
        return file;
      },
    },
    sandbox: { mode: "none", network: { policy: "off", allowHosts: [] }, limits: null },
    fetchPolicy: { allowHosts: [] },
  };
  const tool = (t: Tool, input: unknown) => async () => {
    const run = await runTool(t, input, ctx);
    if (run.error) throw new Error(`${t.name} failed: ${run.llm as string}`);
    return run;
  };

  const scenarios: Scenario[] = [
    {
      name: 'grep content "createTwoFilesPatch"',
      target: GREP_TARGET,
      tool: tool(grepTool, {
        pattern: "createTwoFilesPatch",
        path: CORPUS,
        output_mode: "content",
        head_limit: 10_000,
      }),
      rg: ["--no-heading", "-n", "createTwoFilesPatch", CORPUS],
      grep: ["-rn", "createTwoFilesPatch", CORPUS],
    },
    {
      name: 'grep files "useEffect" (*.js)',
      target: GREP_TARGET,
      tool: tool(grepTool, { pattern: "useEffect", path: CORPUS, glob: "*.js", head_limit: 10_000 }),
      rg: ["-l", "-g", "*.js", "useEffect", CORPUS],
      grep: ["-rl", "--include=*.js", "useEffect", CORPUS],
    },
    {
      name: 'grep count -i "readability" (type js)',
      target: GREP_TARGET,
      tool: tool(grepTool, {
        pattern: "readability",
        path: CORPUS,
        "-i": true,
        type: "js",
        output_mode: "count",
        head_limit: 10_000,
      }),
      rg: ["-c", "-i", "-t", "js", "readability", CORPUS],
      grep: ["-rci", "--include=*.js", "readability", CORPUS],
    },
    {
      name: 'glob "**/package.json"',
      target: GLOB_TARGET,
      tool: tool(globTool, { pattern: "**/package.json", path: CORPUS }),
      rg: ["--files", "-g", "**/package.json", CORPUS],
    },
    {
      name: 'glob "**/*.d.ts"',
      target: GLOB_TARGET,
      tool: tool(globTool, { pattern: "**/*.d.ts", path: CORPUS }),
      rg: ["--files", "-g", "**/*.d.ts", CORPUS],
    },
  ];

  console.log(`Search benchmark on ${path.join(ROOT, CORPUS)}: median of ${RUNS} runs after one warm-up, in ms.\n`);
  const header = ["scenario", "tool", "rg", "grep -rn", "tool/rg", "grep/rg", "target", ""];
  const rows: string[][] = [];
  let missed = 0;
  for (const s of scenarios) {
    await s.tool();
    await timeCommand(rgPath, s.rg);
    if (s.grep) await timeCommand("grep", s.grep);
    const t: number[] = [];
    const r: number[] = [];
    const g: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so that drift in machine load touches all three alike.
      t.push(await timeTool(s.tool));
      r.push(await timeCommand(rgPath, s.rg));
      if (s.grep) g.push(await timeCommand("grep", s.grep));
    }
    const ratio = median(t) / median(r);
    const ok = ratio <= s.target;
    if (!ok) missed++;
    rows.push([
      s.name,
      median(t).toFixed(0),
      median(r).toFixed(0),
      s.grep ? median(g).toFixed(0) : "-",
      `${ratio.toFixed(2)}x`,
      s.grep ? `${(median(g) / median(r)).toFixed(2)}x` : "-",
      `<= ${s.target}x`,
      ok ? "ok" : "MISSED",
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  rmSync(outputs, { recursive: true, force: true });
  if (missed > 0) {
    console.log(`\n${missed} scenario(s) missed the target.`);
    process.exitCode = 1;
  }
}

await main();
