// Idle memory of everything `npm start` leaves running: npm, the server, the embedded PostgreSQL
// and any helper process, with one project open in a browser tab. Run with `npm run bench:memory`.
// Figures only: nothing here fails a build. `npm run bench:memory [idleMs] [rounds]`.
//
// Tandem starts as a user starts it (`npm start` on a fresh data folder, embedded Postgres, a
// production build made first if missing or stale). A signed-up user creates a project with a
// file and opens it in headless Chromium; once the explorer shows the file, the page stays open
// and the processes are left idle for a while before they are measured. Every process descending
// from `npm start` is counted. PSS (proportional set size, /proc/<pid>/smaps_rollup) is the fair
// total: PostgreSQL's processes share its buffers, which RSS would count once per process.
// The reference of the same run is a bare `node -e` process, idle: what any Node process costs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { chromiumLaunchOptions } from "../e2e/chromium";
import { tree, type Usage, usageOf } from "./process-usage";
import { freePort, signUp } from "./tandem-server";

const TARGET_MB = 300;
const IDLE_MS = Number(process.argv[2] ?? 15_000);
/** Single runs of the same code swing by ±40 MB (November 2026), so the verdict is on the median of several. */
const ROUNDS = Number(process.argv[3] ?? 5);
const ROOT = path.resolve(import.meta.dirname, "..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function reference(): Promise<Usage> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await sleep(1000);
  const usage = usageOf(child.pid!)!;
  child.kill();
  return usage;
}

const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const browser = await chromium.launch(await chromiumLaunchOptions());

/** One round: `npm start` on a fresh data folder, one project opened, idle, then every process measured. */
async function round(): Promise<Usage[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tandem-bench-memory-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    TANDEM_DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.DATABASE_URL;
  const npm = spawn("npm", ["start"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env, detached: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const until = Date.now() + 600_000;
    while (
      !(await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}) before it was ready`);
      if (Date.now() > until) throw new Error("Tandem did not become ready in 10 minutes");
      await sleep(250);
    }
    const cookie = await signUp(base);
    const call = async (procedure: string, input: unknown) => {
      const response = await fetch(`${base}/api/trpc/${procedure}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", origin: base },
        body: JSON.stringify({ json: input }),
      });
      if (!response.ok) throw new Error(`${procedure}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { result: { data: { json: { id: string } } } }).result.data.json;
    };
    const project = await call("project.create", { name: "Bench" });
    await call("fs.create", {
      projectId: project.id,
      path: "index.ts",
      content: "export function main() {}\n",
      createParents: true,
    });

    await context.addCookies(
      cookie.split("; ").map((pair) => {
        const [name, ...value] = pair.split("=");
        return { name: name!, value: value.join("="), url: base };
      }),
    );
    const page = await context.newPage();
    await page.goto(`${base}/p/${project.id}`);
    await page.getByTestId("tree-item-index.ts").waitFor({ timeout: 120_000 });
    await sleep(IDLE_MS);
    return tree(npm.pid!)
      .map(usageOf)
      .filter((u): u is Usage => u !== null);
  } finally {
    await context.close();
    // The whole group: npm, and whatever it started.
    try {
      process.kill(-npm.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => (npm.exitCode !== null ? r(null) : npm.once("exit", r)));
    await sleep(1000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const totals: number[] = [];
let median: { processes: Usage[]; pssKb: number } | null = null;
const rounds: { processes: Usage[]; pssKb: number }[] = [];
try {
  for (let i = 0; i < ROUNDS; i++) {
    const processes = await round();
    const pssKb = processes.reduce((sum, p) => sum + p.pssKb, 0);
    rounds.push({ processes, pssKb });
    totals.push(pssKb);
    console.log(`round ${i + 1} of ${ROUNDS}: ${mb(pssKb)} PSS in all`);
  }
  median = [...rounds].sort((a, b) => a.pssKb - b.pssKb)[Math.floor(rounds.length / 2)]!;
} finally {
  await browser.close();
}
const bare = await reference();
const { processes } = median;
const total = processes.reduce((sum, p) => ({ rss: sum.rss + p.rssKb, pss: sum.pss + p.pssKb }), { rss: 0, pss: 0 });
console.log(
  `\nbench:memory — idle ${IDLE_MS / 1000} s after one project opened; ${ROUNDS} rounds, the median round below; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n`,
);
console.log("| pid | process | RSS | PSS |");
console.log("|---|---|---|---|");
for (const p of processes) console.log(`| ${p.pid} | ${p.name} | ${mb(p.rssKb)} | ${mb(p.pssKb)} |`);
console.log(`| | **all ${processes.length} processes** | ${mb(total.rss)} | **${mb(total.pss)}** |`);
console.log(`| | reference: bare idle node | ${mb(bare.rssKb)} | ${mb(bare.pssKb)} |`);
console.log(`\nPSS in all, each round: ${totals.map(mb).join(", ")}`);
const verdict = total.pss / 1024 <= TARGET_MB ? "met" : "MISSED";
console.log(
  `median total PSS vs target ${TARGET_MB} MB: ×${(total.pss / 1024 / TARGET_MB).toFixed(2)} (${verdict}); vs a bare Node process: ×${(total.pss / bare.pssKb).toFixed(1)}`,
);
