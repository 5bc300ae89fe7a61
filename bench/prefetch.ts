// Predictive reads (server/tools/prefetch.ts) against none, in the same run: an agent's turn read
// as it goes, through the real read_file and the tool wrapper: it reads an entry file, thinks, reads
// the files that one imports (in parallel, as read-only calls run), thinks, and so on three levels
// down. Counts the reads that had to go to disk at call time ("cold") and times the reads and the
// turn. Run with `npm run bench:prefetch`; exits non-zero when prefetching does not cut cold reads
// and read time.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Workspace } from "@/server/workspace";
import type { ToolContext } from "@/server/tools/define-tool";
import { createReadTracker } from "@/server/tools/read-tracker";
import { workspaceOutputStore } from "@/server/tools/output-store";
import { runTool } from "@/server/tools/registry";
import { readFileTool } from "@/server/tools/read-file";
import { createPrefetcher, type Prefetcher } from "@/server/tools/prefetch";
import type { ShellSession } from "@/server/workspace/shell-session";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 40);
const FANOUT = 4;
const DEPTH = 3;

/** A tree of modules: m<level>_<i>.ts imports FANOUT modules of the next level; each ~6 KB. */
async function corpus(root: string): Promise<string> {
  const body = (name: string) =>
    Array.from({ length: 120 }, (_, i) => `export const ${name}_${i} = ${i}; // padding to a realistic size`).join(
      "\n",
    );
  let level = ["m0_0"];
  for (let depth = 0; depth <= DEPTH; depth++) {
    const next: string[] = [];
    for (const [i, name] of level.entries()) {
      const children = depth < DEPTH ? Array.from({ length: FANOUT }, (_, k) => `m${depth + 1}_${i * FANOUT + k}`) : [];
      next.push(...children);
      const imports = children.map((c) => `import { ${c}_0 } from "./${c}";`).join("\n");
      await writeFile(path.join(root, "src", `${name}.ts`), `${imports}\n${body(name)}\n`);
    }
    level = next;
  }
  return "src/m0_0.ts";
}

function context(workspace: Workspace, prefetch: Prefetcher | undefined): ToolContext {
  return {
    workspace,
    projectId: "bench",
    sessionId: "bench",
    userId: "bench",
    signal: new AbortController().signal,
    emit: () => {},
    reads: createReadTracker(),
    shell: {} as ShellSession,
    outputs: workspaceOutputStore(workspace, "bench"),
    sandbox: { mode: "none", network: { policy: "off", allowHosts: [] }, limits: null },
    fetchPolicy: { allowHosts: [] },
    ...(prefetch ? { prefetch } : {}),
  };
}

async function turn(workspace: Workspace, entry: string, prefetch: Prefetcher | undefined) {
  const ctx = context(workspace, prefetch);
  const started = performance.now();
  let readMs = 0;
  let reads = 0;
  let level = [entry];
  for (let depth = 0; depth <= DEPTH; depth++) {
    const t = performance.now();
    const results = await Promise.all(level.map((p) => runTool(readFileTool, { path: p }, ctx)));
    readMs += performance.now() - t;
    reads += level.length;
    level = results.flatMap((r) => [...String(r.llm).matchAll(/from "\.\/(m\d+_\d+)"/g)].map((m) => `src/${m[1]}.ts`));
    await new Promise((r) => setTimeout(r, THINK_MS)); // the model reads the results and decides
  }
  const stats = prefetch?.stats();
  return { turnMs: performance.now() - started, readMs, cold: stats ? stats.misses : reads, reads };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "tandem-bench-prefetch-")));
  try {
    await mkdir(path.join(base, "src"));
    const entry = await corpus(base);
    const workspace = await Workspace.open(base);
    const plain: Awaited<ReturnType<typeof turn>>[] = [];
    const ahead: Awaited<ReturnType<typeof turn>>[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating, so both see the same machine; each turn a fresh session.
      plain.push(await turn(workspace, entry, undefined));
      ahead.push(await turn(workspace, entry, createPrefetcher()));
    }
    const row = (label: string, runs: typeof plain) =>
      `${label.padEnd(14)} reads ${runs[0]!.reads}  cold ${median(runs.map((r) => r.cold))
        .toString()
        .padStart(
          3,
        )}  read time ${median(runs.map((r) => r.readMs)).toFixed(2)} ms  turn ${median(runs.map((r) => r.turnMs)).toFixed(1)} ms`;
    console.log(
      `one turn over ${DEPTH + 1} levels of imports (fan-out ${FANOUT}), ${THINK_MS} ms of thinking per step, median of ${RUNS}:`,
    );
    console.log(row("no prefetch", plain));
    console.log(row("prefetch", ahead));
    const coldRatio = median(ahead.map((r) => r.cold)) / median(plain.map((r) => r.cold));
    const readRatio = median(ahead.map((r) => r.readMs)) / median(plain.map((r) => r.readMs));
    const turnRatio = median(ahead.map((r) => r.turnMs)) / median(plain.map((r) => r.turnMs));
    console.log(
      `ratios (prefetch / none): cold reads ${coldRatio.toFixed(2)}, read time ${readRatio.toFixed(2)}, turn ${turnRatio.toFixed(3)}`,
    );
    if (coldRatio >= 0.5 || readRatio >= 1) process.exitCode = 1;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

await main();
