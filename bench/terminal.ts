// Terminal throughput, Ctrl-C latency and server memory, from the PTY to xterm.js in Chromium.
// Run with `npm run bench:terminal`. Figures only: nothing here fails a build.
//
// Where the time went (November 2026, 100 MB, 2 cores): the PTY hands node-pty about 4 KB per read
// whatever the reader's pace, so every microsecond of work per read on the server's thread lowers
// the rate (100 µs per read: 42 -> 30 MB/s). CPU per MB of the whole browser path was ~85 ms:
// Chromium's renderer ~33, the server ~26, Chromium's browser process ~13 (under Playwright, which
// has every WebSocket frame reported to it), the shell and cat ~5. Every byte of the flood crossed
// the WebSocket, though the browser then left most of it unparsed (components/terminal/
// flood-skipper.ts). Now a browser a window behind gets no more until it acknowledges, and a
// flood's plain text that would scroll out meanwhile is left out on the server (server/terminal/
// output-backlog.ts): about half the file reaches the browser, the PTY no longer waits for it, and
// the IDE's renderer went from 17.7-21.3 to 24-32 MB/s.
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn as spawnProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type Page } from "playwright-core";
import { chromiumLaunchOptions, describeChromium } from "../e2e/chromium";
import { WebSocketServer } from "ws";
import { TerminalService } from "@/server/terminal";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { testSandbox } from "@/server/test/sandbox";
import { writeFloodFile } from "./flood-file";

const require = createRequire(import.meta.url);
const { spawn } = require("node-pty") as typeof import("node-pty");
const { Terminal: Headless } = require("@xterm/headless") as typeof import("@xterm/headless");

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FILE_MB = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 3);
const TIMEOUT_MS = 180_000;
/** Set to a folder to have the first DOM-renderer run write the page's CPU profile there (open it in Chrome's DevTools). */
const BROWSER_PROFILE_DIR = process.env.BENCH_BROWSER_PROF;
const mb = (bytes: number) => bytes / 1e6;
// memoryUsage.rss() reads only the RSS; memoryUsage() also walks the heap (3% of this process's CPU at 40 samples/s).
const rssMb = () => mb(process.memoryUsage.rss());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (ms) used so far by this process and everything below it: the shell and `cat` in the
 * sandbox, Chromium's processes. On a loaded machine the MB/s figures move with the load; the CPU
 * the whole path spends per MB does not, and it is what a faster path must lower.
 */
function treeCpuMs(): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name: state, ppid, ... utime (14), stime, cutime, cstime (17).
      const fields = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      stats.set(Number(entry), { ppid: fields[1]!, ticks: fields[11]! + fields[12]! + fields[13]! + fields[14]! });
    } catch {
      // exited while listed; its time is in its parent's cutime once reaped
    }
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const walk = (pid: number) => {
    ticks += stats.get(pid)?.ticks ?? 0;
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(process.pid);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

async function rawPty(file: string, bytes: number): Promise<{ rate: number; cpuPerMb: number }> {
  const cpu = treeCpuMs();
  const start = performance.now();
  const pty = spawn("/bin/cat", [file], {
    cols: 120,
    rows: 30,
    cwd: path.dirname(file),
    env: { TERM: "xterm-256color" },
  });
  let received = 0;
  pty.onData((data) => (received += data.length));
  await new Promise<void>((resolve) => pty.onExit(() => resolve()));
  if (received < bytes) console.warn(`raw PTY delivered ${received} of ${bytes} bytes`);
  return { rate: mb(bytes) / ((performance.now() - start) / 1000), cpuPerMb: (treeCpuMs() - cpu) / mb(bytes) };
}

async function headlessOnly(file: string, bytes: number): Promise<number> {
  const term = new Headless({ cols: 120, rows: 30, scrollback: 5000, allowProposedApi: true });
  const start = performance.now();
  for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: 64 * 1024 })) {
    term.write((chunk as string).replaceAll("\n", "\r\n"));
  }
  await new Promise<void>((resolve) => term.write("", resolve));
  term.dispose();
  return mb(bytes) / ((performance.now() - start) / 1000);
}

let catRuns = 0;
/** A command that cats the file, then prints a marker that shows only once the cat is done. */
function catCommand(file: string): { command: string; marker: string } {
  const n = ++catRuns;
  return { command: `cat ${file}; echo cat-done-$((${n}+1000))\r`, marker: `cat-done-${n + 1000}` };
}

// The server's whole path without a browser: PTY -> screen mirror -> frames, acknowledged at once.
async function serverOnly(
  service: TerminalService,
  projectId: string,
  file: string,
  bytes: number,
): Promise<Run & { sent: number }> {
  const { id } = await service.create(projectId, path.dirname(file), { cols: 120, rows: 30 });
  const terminal = service.get(projectId, id)!;
  const { command, marker } = catCommand(file);
  let received = 0;
  let tail = "";
  let finished = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  const attachment = terminal.attach({
    output: (frame) => {
      received += frame.length;
      tail = (tail + frame.toString("utf8", Math.max(0, frame.length - 256))).slice(-512);
      setImmediate(() => attachment.ack(frame.length));
      if (tail.includes(marker)) finished();
    },
    message: () => {},
    close: () => {},
  });
  terminal.write("stty -echo\r");
  await sleep(1000);
  const before = received;
  const cpu = treeCpuMs();
  const start = performance.now();
  terminal.write(command);
  await done;
  const seconds = (performance.now() - start) / 1000;
  const cpuPerMb = (treeCpuMs() - cpu) / mb(bytes);
  attachment.detach();
  service.close(projectId, id);
  return { rate: mb(bytes) / seconds, cpuPerMb, sent: received - before };
}

async function pageBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `
        import { Terminal } from "@xterm/xterm";
        import { TerminalConnection } from "@/components/terminal/terminal-connection";
        const terminal = new Terminal({ cols: 120, rows: 30, scrollback: 5000 });
        terminal.open(document.getElementById("terminal"));
        const state = { status: "", parsed: 0, renderer: "dom" };
        const url = "ws://" + location.host + "/ws" + location.search;
        new TerminalConnection({ terminal, url, onStatus: (s) => (state.status = s), onParsed: (n) => (state.parsed += n) });
        // The IDE draws with xterm's DOM renderer; "webgl" measures the WebGL addon beside it. Without
        // a GPU (headless Chromium here), Chromium runs WebGL in software (SwiftShader).
        if (new URLSearchParams(location.search).get("renderer") === "webgl") {
          const gl = document.createElement("canvas").getContext("webgl2");
          const info = gl?.getExtension("WEBGL_debug_renderer_info");
          state.renderer = "webgl on " + (gl && info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "?");
          import("@xterm/addon-webgl").then(({ WebglAddon }) => terminal.loadAddon(new WebglAddon()));
        }
        /** Whether the last lines of the terminal show the text. */
        const shows = (text) => {
          const buffer = terminal.buffer.active;
          for (let y = Math.max(0, buffer.length - 40); y < buffer.length; y++) {
            if (buffer.getLine(y)?.translateToString().includes(text)) return true;
          }
          return false;
        };
        // Time from Ctrl-C until the shell has run the next command and the page shows its output.
        async function ctrlC() {
          const start = performance.now();
          terminal.input("\\x03", true);
          terminal.input("echo ctrlc-done-$((1+1))\\r", true);
          while (!shows("ctrlc-done-2")) {
            if (performance.now() - start > 30000) return Infinity;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return performance.now() - start;
        }
        Object.assign(window, { bench: { state, terminal, ctrlC, shows } });
        // ?cat=<command>&marker=<text>: the page runs the cat itself and posts its time to /result,
        // for a browser that no DevTools client is attached to (see plainBrowserCat).
        const auto = new URLSearchParams(location.search);
        if (auto.get("cat")) (async () => {
          const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
          while (state.status !== "connected") await sleep(20);
          terminal.input("stty -echo; unset PROMPT_COMMAND; PS1='$ '\\r", true);
          await sleep(500);
          const parsed = state.parsed;
          const start = performance.now();
          terminal.input(auto.get("cat"), true);
          while (!shows(auto.get("marker"))) await sleep(50);
          const ms = performance.now() - start;
          await fetch("/result", { method: "POST", body: JSON.stringify({ ms, sent: state.parsed - parsed }) });
        })();`,
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "iife",
    write: false,
    tsconfig: path.join(ROOT, "tsconfig.json"),
    logLevel: "error",
  });
  return result.outputFiles[0]!.text;
}

async function startServer(service: TerminalService, projectId: string) {
  const js = await pageBundle();
  const css = readFileSync(path.join(ROOT, "node_modules/@xterm/xterm/css/xterm.css"), "utf8");
  const html = `<!doctype html><html><head><style>${css}</style></head>
    <body style="margin:0;background:#000"><div id="terminal"></div><script>${js}</script></body></html>`;
  const results: Array<(result: { ms: number; sent: number }) => void> = [];
  const server = http.createServer((req, res) => {
    if (req.method === "POST" && req.url === "/result") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => (results.shift()?.(JSON.parse(body)), res.end()));
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  server.on("upgrade", (req, socket, head) => {
    const terminal = service.get(projectId, new URL(req.url ?? "/", "http://x").searchParams.get("terminalId") ?? "");
    if (!terminal) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => service.attach(terminal, ws, { canWrite: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const nextResult = () => new Promise<{ ms: number; sent: number }>((resolve) => results.push(resolve));
  return { server, port: (server.address() as AddressInfo).port, nextResult };
}

/**
 * The DOM renderer's run in a Chromium that no DevTools client drives, as in a person's browser:
 * the page runs the cat and posts its time. Under Playwright, Chromium reports every WebSocket
 * frame, payload included, to the DevTools client, and that costs the browser's processes CPU.
 */
async function plainBrowserCat(
  port: number,
  terminalId: string,
  file: string,
  nextResult: () => Promise<{ ms: number; sent: number }>,
  bytes: number,
): Promise<Run & { sent: number }> {
  const { command, marker } = catCommand(file);
  const url = `http://127.0.0.1:${port}/?terminalId=${terminalId}&cat=${encodeURIComponent(command)}&marker=${marker}`;
  const options = await chromiumLaunchOptions();
  const profile = mkdtempSync(path.join(tmpdir(), "tandem-bench-chromium-"));
  const result = nextResult();
  const cpu = treeCpuMs();
  const browser = spawnProcess(options.executablePath!, [...(options.args ?? []), `--user-data-dir=${profile}`, url], {
    env: (options.env ?? process.env) as NodeJS.ProcessEnv,
    stdio: "ignore",
  });
  try {
    const { ms, sent } = await Promise.race([
      result,
      sleep(TIMEOUT_MS).then(() => Promise.reject(new Error("plain browser run timed out"))),
    ]);
    // The CPU from launch to the end: a little more than the cat's (the launch and page load).
    return { rate: mb(bytes) / (ms / 1000), cpuPerMb: (treeCpuMs() - cpu) / mb(bytes), sent };
  } finally {
    browser.kill("SIGKILL");
    await new Promise((resolve) => browser.once("exit", resolve));
    rmSync(profile, { recursive: true, force: true });
  }
}

/** What the bench page puts on `window` for the driver (see the page script above). */
interface BenchWindow {
  bench: {
    state: { parsed: number; status: string; renderer: string };
    terminal: { input(data: string, user: boolean): void };
    shows(text: string): boolean;
  };
}

const parsedBytes = (page: Page) =>
  page.evaluate(() => (window as unknown as BenchWindow).bench.state.parsed as number);
const typeInto = (page: Page, data: string) =>
  page.evaluate((d) => (window as unknown as BenchWindow).bench.terminal.input(d, true), data);

interface Run {
  rate: number;
  cpuPerMb: number;
  /** Bytes of output that reached the terminal, the cat's and the prompt's (less than the file's when a flood was left out). */
  sent?: number;
}

const loadAverage = () =>
  require("node:os")
    .loadavg()
    .map((l: number) => l.toFixed(2))
    .join(" ");

function sampleRss(): { stop(): number } {
  let max = rssMb();
  const timer = setInterval(() => (max = Math.max(max, rssMb())), 25);
  return { stop: () => (clearInterval(timer), Math.max(max, rssMb())) };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), "tandem-bench-"));
  const { file, bytes, lines } = writeFloodFile(dir, FILE_MB);
  const sandboxMode = (await bwrapAvailable()) ? "bwrap" : "none";
  console.log(
    `file: ${mb(bytes).toFixed(0)} MB, ${lines} lines; sandbox: ${sandboxMode}; cores: ${require("node:os").cpus().length}`,
  );

  const headless = await headlessOnly(file, bytes);
  const service = new TerminalService({ sandbox: testSandbox(sandboxMode) });
  const projectId = "bench";
  const { id } = await service.create(projectId, dir, { cols: 120, rows: 30 });
  const { server, port, nextResult } = await startServer(service, projectId);
  const browser = await chromium.launch(await chromiumLaunchOptions());
  const browserName = await describeChromium(browser);
  const results: Array<[string, string, string, string, string]> = [];
  let profiled = false;
  /** One page per run: `cat` of the file until the page's xterm shows the line printed after it. */
  async function browserCat(renderer: "webgl" | "dom"): Promise<Run & { page: Page; rendered: string; sent: number }> {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?terminalId=${id}&renderer=${renderer}`);
    await page.waitForFunction(() => (window as unknown as BenchWindow).bench.state.status === "connected");
    await typeInto(page, "stty -echo; unset PROMPT_COMMAND; PS1='$ '\r");
    await sleep(500);
    const rendered = await page.evaluate(() => (window as unknown as BenchWindow).bench.state.renderer as string);
    const before = await parsedBytes(page);
    const profiler =
      BROWSER_PROFILE_DIR && renderer === "dom" && !profiled ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      profiled = true;
      await profiler.send("Profiler.enable");
      await profiler.send("Profiler.start");
    }
    const cpu = treeCpuMs();
    const start = performance.now();
    const { command, marker } = catCommand(file);
    await typeInto(page, command);
    await page.waitForFunction((text) => (window as unknown as BenchWindow).bench.shows(text), marker, {
      timeout: TIMEOUT_MS,
      polling: 50,
    });
    const rate = mb(bytes) / ((performance.now() - start) / 1000);
    const cpuPerMb = (treeCpuMs() - cpu) / mb(bytes);
    if (profiler) {
      const { profile } = await profiler.send("Profiler.stop");
      writeFileSync(path.join(BROWSER_PROFILE_DIR!, `terminal-dom-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    }
    const sent = (await parsedBytes(page)) - before;
    return { page, rendered, rate, cpuPerMb, sent };
  }
  try {
    // Interleaved rounds, so every path sees the same machine; the median of each.
    const runs: Record<"raw" | "server" | "webgl" | "dom" | "plain", Run[]> = {
      raw: [],
      server: [],
      webgl: [],
      dom: [],
      plain: [],
    };
    let catGrowth = 0;
    let webglOn = "";
    for (let round = 0; round < ROUNDS; round++) {
      runs.raw.push(await rawPty(file, bytes));
      runs.server.push(await serverOnly(service, projectId, file, bytes));
      for (const renderer of ["dom", "webgl"] as const) {
        const run = await browserCat(renderer);
        runs[renderer].push(run);
        if (renderer === "webgl") webglOn = run.rendered;
        await run.page.close();
      }
      // The server's growth while a browser without DevTools shows the cat: under Playwright, this
      // process also holds the driver's copy of every WebSocket frame.
      const rssCat = sampleRss();
      const baseCat = rssMb();
      runs.plain.push(await plainBrowserCat(port, id, file, nextResult, bytes));
      catGrowth = Math.max(catGrowth, rssCat.stop() - baseCat);
      const line = (["raw", "server", "dom", "plain", "webgl"] as const).map((k) => {
        const { rate, sent } = runs[k].at(-1)!;
        return `${k} ${rate.toFixed(1)} MB/s${sent === undefined ? "" : ` (${mb(sent).toFixed(1)} MB reached it)`}`;
      });
      console.log(`round ${round + 1}: ${line.join(", ")}; load ${loadAverage()}`);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const rate = (k: keyof typeof runs) => median(runs[k].map((r) => r.rate));
    const cpuPerMb = (k: keyof typeof runs) => `${median(runs[k].map((r) => r.cpuPerMb)).toFixed(0)}`;
    const raw = rate("raw");
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?terminalId=${id}`);
    await page.waitForFunction(() => (window as unknown as BenchWindow).bench.state.status === "connected");

    await sleep(500);
    const baseYes = rssMb();
    const rssYes = sampleRss();
    await typeInto(page, "yes\r");
    await sleep(3000);
    const ctrlCs = [(await page.evaluate("bench.ctrlC()")) as number];
    const yesGrowth = rssYes.stop() - baseYes;
    // One Ctrl-C moves with the load; the median of five does much less.
    while (ctrlCs.length < 5) {
      await typeInto(page, "yes\r");
      await sleep(1500);
      ctrlCs.push((await page.evaluate("bench.ctrlC()")) as number);
    }
    const ctrlC = median(ctrlCs);
    console.log(`Ctrl-C samples: ${ctrlCs.map((ms) => ms.toFixed(0)).join(", ")} ms`);

    results.push(
      ["raw PTY read (cat, node-pty only)", `${raw.toFixed(1)} MB/s`, cpuPerMb("raw"), "reference", "1.00"],
      ["headless xterm parse only", `${headless.toFixed(1)} MB/s`, "-", "-", (headless / raw).toFixed(2)],
      [
        "PTY -> screen mirror -> frames (no browser)",
        `${rate("server").toFixed(1)} MB/s`,
        cpuPerMb("server"),
        "-",
        (rate("server") / raw).toFixed(2),
      ],
      [
        "PTY -> ws -> Chromium xterm, DOM renderer (the IDE's)",
        `${rate("plain").toFixed(1)} MB/s`,
        cpuPerMb("plain"),
        ">= 25 MB/s",
        (rate("plain") / raw).toFixed(2),
      ],
      [
        "  the same, Chromium driven by Playwright",
        `${rate("dom").toFixed(1)} MB/s`,
        cpuPerMb("dom"),
        "-",
        (rate("dom") / raw).toFixed(2),
      ],
      [
        `PTY -> ws -> Chromium xterm, ${webglOn}`.slice(0, 70),
        `${rate("webgl").toFixed(1)} MB/s`,
        cpuPerMb("webgl"),
        "-",
        (rate("webgl") / raw).toFixed(2),
      ],
      ["WebGL vs DOM renderer", "", "", "", (rate("webgl") / rate("dom")).toFixed(2)],
      ["browser (DOM renderer) vs target", "", "", "", (rate("plain") / 25).toFixed(2)],
      ["Ctrl-C during yes -> prompt (median of 5)", `${ctrlC.toFixed(0)} ms`, "", "< 100 ms", (ctrlC / 100).toFixed(2)],
      [
        `server RSS growth, cat ${FILE_MB} MB`,
        `${catGrowth.toFixed(1)} MB`,
        "",
        "< 50 MB",
        (catGrowth / 50).toFixed(2),
      ],
      ["server RSS growth, yes flood 3 s", `${yesGrowth.toFixed(1)} MB`, "", "< 50 MB", (yesGrowth / 50).toFixed(2)],
    );
  } finally {
    await browser.close();
    service.disposeAll();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${ROUNDS} interleaved rounds, medians; load average ${loadAverage()}; ${browserName}`);
  console.log(
    "CPU ms/MB: this process, the shell and cat in the sandbox, and Chromium; ratio: against the raw PTY read",
  );
  console.log(
    "Rates run from Enter until the line printed after the cat shows. The IDE's row is a Chromium that no DevTools client drives, as a person's is " +
      "(its CPU includes the browser's start); under Playwright, Chromium also reports every WebSocket frame, payload included, to the driver.",
  );
  printTable(["measure", "value", "CPU ms/MB", "target", "ratio"], results);
}

function printTable(header: string[], rows: string[][]) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
