// How fast the IDE becomes usable in headless Chromium, and how fast a 10,000-event agent session
// opens. Run with `npm run bench:ui [runs]`. Figures only: nothing here fails a build.
//
// A fresh Tandem (production build, as `npm start` serves it) runs on loopback against an embedded
// PostgreSQL that this script starts, so it can write the long session's events straight into the
// log (the repository the runtime uses) instead of running 1,000 model turns.
//
// What is measured, each the median of N runs:
// - IDE interactive, cold: a new browser context (empty HTTP cache, no storage) loads the project
//   page; timed from navigation start until a file is open in Monaco AND editable: the explorer's
//   row for index.ts is clicked as soon as it appears, and a typed character shows in the
//   editor's text. Warm: the same, after a reload in the same context (cached bundles).
// - 10,000-event session: in a loaded IDE showing the session list, a click on the session row
//   until its transcript is rendered with the last event's message visible; and a full page load
//   that reopens that session (the panel remembers it) until the same point.
// - Quick Open, cold: a new context loads the project page, Ctrl/Cmd+P as soon as the IDE takes it,
//   "index", Enter, until the file's text shows in Monaco. With a fresh server: the same as the
//   first page load after Tandem restarts (on the same database), as after `npm start`.
// The harness notices each of these moments within a frame of the page showing it (`shows`), and
// acts at once, as the person each figure stands for would.
// Beside them, as the reference of the same run, the sign-in page's load (a static page on the
// same server and browser): what any page costs here. Reference and IDE take turns in each run.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { chromiumLaunchOptions, describeChromium } from "../e2e/chromium";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { insertEvents, lastSeq, type NewEventRow } from "@/server/db/repositories/session-events";
import { clickAt, EDITOR_LINES, newContext, shows } from "./page-timing";
import { countLoads, profileMainThread } from "./page-trace";
import { api, signUp, startTandem, stopTandem } from "./tandem-server";

const RUNS = Number(process.argv[2] ?? 5);
const TURNS = 1000; // × 10 events
const TARGET_IDE_COLD_MS = 1500;
const TARGET_SESSION_MS = 1000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;

/** 1,000 turns of a user question, a file read, streamed and final text, usage: 10,000 events. */
function longSessionRows(sessionId: string, authorId: string, firstSeq: number): NewEventRow[] {
  const rows: NewEventRow[] = [];
  let seq = firstSeq - 1;
  const at = new Date("2026-11-20T09:00:00Z");
  const add = (type: NewEventRow["type"], payload: unknown, author: string | null = null) =>
    rows.push({ sessionId, seq: ++seq, type, payload, authorId: author, createdAt: at });
  for (let turn = 1; turn <= TURNS; turn++) {
    const turnId = `turn-${turn}`;
    add("user_message", { text: `Question ${turn}: what does module ${turn} do?`, authorName: "Bench" }, authorId);
    add("status", { status: "running" });
    add("turn_started", { turnId, model: "openai-compatible:bench", resumed: false });
    add("tool_call", {
      turnId,
      stepId: `${turnId}-1`,
      toolCallId: `call-${turn}`,
      toolName: "read_file",
      input: { path: `src/module-${turn}.ts` },
      title: `Read src/module-${turn}.ts`,
      kind: "read",
    });
    add("tool_result", {
      turnId,
      toolCallId: `call-${turn}`,
      toolName: "read_file",
      ok: true,
      llm: "…",
      display: { kind: "text", text: `Read src/module-${turn}.ts (1-40)` },
      durationMs: 12,
    });
    add("assistant_delta", { turnId, stepId: `${turnId}-2`, text: `Module ${turn} ` });
    add("assistant_message", {
      turnId,
      stepId: `${turnId}-2`,
      text: `Module ${turn} **parses** the \`config-${turn}\` file and returns its settings.`,
    });
    add("usage", {
      turnId,
      stepId: `${turnId}-2`,
      step: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 },
      session: { inputTokens: 100 * turn, outputTokens: 20 * turn, cachedInputTokens: 0, reasoningTokens: 0 },
      stepCostUsd: null,
      sessionCostUsd: 0,
    });
    add("turn_finished", { turnId, reason: "completed", steps: 2 });
    add("status", { status: "idle" });
  }
  return rows;
}

/** From navigation start: explorer row clicked as soon as it shows, then a typed character appears in Monaco. */
async function timeToEditable(
  page: Page,
  navigate: () => Promise<unknown>,
): Promise<{ total: number; tree: number; editorCode: number }> {
  const start = Date.now();
  await navigate();
  const row = await shows(page, '[data-testid="tree-item-index.ts"]');
  const tree = Date.now() - start;
  await clickAt(page, row);
  const lines = await shows(page, EDITOR_LINES, "export function main");
  const text = Date.now() - start;
  await clickAt(page, lines);
  await page.keyboard.type("Z");
  await shows(page, EDITOR_LINES, "Z", 10_000).catch(async (error) => {
    // Says where the key went: a click that landed before the editor took it leaves focus elsewhere.
    const focus = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
    throw new Error(`the typed "Z" never showed after a click at ${JSON.stringify(lines)}; focus: ${focus}`, {
      cause: error,
    });
  });
  const total = Date.now() - start;
  // The page's clock starts at navigation, a little before `start`: close enough for the order of milestones.
  const editorCode = await page.evaluate(
    () => performance.getEntriesByName("tandem:editor-code")[0]?.startTime ?? Number.NaN,
  );
  if (WATERFALL)
    console.log(
      `milestones: explorer row ${tree} ms, editor code loaded ${Math.round(editorCode)} ms, file text ${text} ms, editable ${total} ms`,
    );
  return { total, tree, editorCode };
}

/** From navigation start: Ctrl/Cmd+P as soon as the IDE answers it, a few letters, Enter, until the file's text shows. */
async function timeToQuickOpen(page: Page, navigate: () => Promise<unknown>): Promise<number> {
  const start = Date.now();
  await navigate();
  const palette = '[data-testid="command-palette"]';
  // A person presses the keys as soon as the IDE is on screen; before its handler is mounted nothing happens.
  for (let opened = false; !opened; ) {
    if (Date.now() - start > 60_000) throw new Error("Quick Open never opened");
    await page.keyboard.press("ControlOrMeta+P").catch(() => {});
    opened = await shows(page, palette, "", 100).then(
      () => true,
      () => false,
    );
  }
  await page.keyboard.type("index");
  await shows(page, `${palette} [data-testid="palette-file"]`, "index.ts");
  await page.keyboard.press("Enter");
  await shows(page, EDITOR_LINES, "export function main");
  return Date.now() - start;
}

/** Set (to anything) to print the first cold load's requests as a waterfall, in ms from navigation. */
const WATERFALL = !!process.env.BENCH_UI_WATERFALL;
/** Set to a folder to have the page's main thread profiled through the first cold load (open it in Chrome's DevTools). */
const PROFILE_DIR = process.env.BENCH_UI_PROF;

const dataDir = mkdtempSync(path.join(os.tmpdir(), "tandem-bench-ui-"));
const pg = await startEmbeddedPostgres(path.join(dataDir, "bench-db"));
let tandem: ChildProcess | undefined;
let browser: Browser | undefined;
try {
  const started = await startTandem(dataDir, pg.url, { TANDEM_SANDBOX: "none" });
  tandem = started.child;
  let base = started.base;

  const cookie = await signUp(base);
  const call = api(base, cookie);
  const project = await call<{ id: string }>("mutation", "project.create", { name: "Bench" });
  const source = [
    "export function main() {",
    ...Array.from({ length: 200 }, (_, i) => `  console.log("line ${i + 1}");`),
    "}",
    "",
  ].join("\n");
  await call("mutation", "fs.create", {
    projectId: project.id,
    path: "index.ts",
    content: source,
    createParents: true,
  });
  const session = await call<{ id: string; authorId: string }>("mutation", "session.create", {
    projectId: project.id,
    title: "A long session",
  });

  const db = createDb(pg.url);
  const rows = longSessionRows(session.id, session.authorId, (await lastSeq(db, session.id)) + 1);
  for (let i = 0; i < rows.length; i += 1000) await insertEvents(db, rows.slice(i, i + 1000));
  await db.$disconnect();

  browser = await chromium.launch(await chromiumLaunchOptions());
  const ideUrl = `${base}/p/${project.id}`;

  // The reference (the sign-in page) and the IDE take turns in each run, so both see the same machine.
  const reference = { cold: [] as number[], warm: [] as number[] };
  const ide = {
    cold: [] as number[],
    warm: [] as number[],
    treeCold: [] as number[],
    editorCodeCold: [] as number[],
    quickOpen: [] as number[],
  };
  const firstLoad = { scriptKb: 0, scripts: 0, requests: 0 };
  for (let i = 0; i < RUNS; i++) {
    {
      const context = await browser.newContext();
      const page = await context.newPage();
      let start = Date.now();
      await page.goto(`${base}/sign-in`, { waitUntil: "load" });
      await shows(page, '[data-testid="sign-in-form"], [data-testid="create-project-form"]');
      reference.cold.push(Date.now() - start);
      start = Date.now();
      await page.reload({ waitUntil: "load" });
      await shows(page, '[data-testid="sign-in-form"], [data-testid="create-project-form"]');
      reference.warm.push(Date.now() - start);
      await context.close();
    }
    {
      const context = await newContext(browser, base, cookie);
      const page = await context.newPage();
      const loaded = i === 0 ? countLoads(page, WATERFALL) : null;
      const profiler = i === 0 && PROFILE_DIR ? await profileMainThread(page, PROFILE_DIR, "ide-cold") : null;
      const cold = await timeToEditable(page, () => page.goto(ideUrl, { waitUntil: "commit" }));
      if (loaded) Object.assign(firstLoad, await loaded.stop());
      if (profiler) console.log(`CPU profile of the page's first cold load: ${await profiler.stop()}`);
      ide.cold.push(cold.total);
      ide.treeCold.push(cold.tree);
      ide.editorCodeCold.push(cold.editorCode);
      const warm = await timeToEditable(page, () => page.reload({ waitUntil: "commit" }));
      ide.warm.push(warm.total);
      await context.close();
    }
    {
      const context = await newContext(browser, base, cookie);
      const page = await context.newPage();
      ide.quickOpen.push(await timeToQuickOpen(page, () => page.goto(ideUrl, { waitUntil: "commit" })));
      await context.close();
    }
  }

  // A fresh server: the first page a person opens after the server starts pays for whatever the
  // server initialises lazily. Each run restarts Tandem on the same database and data directory.
  const quickOpenFresh: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await stopTandem(tandem);
    const restarted = await startTandem(dataDir, pg.url, { TANDEM_SANDBOX: "none" });
    tandem = restarted.child;
    const context = await newContext(browser, restarted.base, cookie);
    const page = await context.newPage();
    quickOpenFresh.push(
      await timeToQuickOpen(page, () => page.goto(`${restarted.base}/p/${project.id}`, { waitUntil: "commit" })),
    );
    await context.close();
    base = restarted.base;
  }
  const ideUrlNow = `${base}/p/${project.id}`;

  const sessionOpen = { click: [] as number[], load: [] as number[] };
  const lastMessage = (page: Page) => shows(page, '[data-testid="assistant-message"]', `Module ${TURNS} parses`);
  for (let i = 0; i < RUNS; i++) {
    const context = await newContext(browser, base, cookie);
    const page = await context.newPage();
    await page.goto(ideUrlNow);
    const open = await shows(page, '[data-testid="session-row"] [data-testid="session-open"]', "A long session");
    let start = Date.now();
    await clickAt(page, open);
    await lastMessage(page);
    sessionOpen.click.push(Date.now() - start);
    // The panel now remembers the session: a reload reopens it.
    start = Date.now();
    await page.reload({ waitUntil: "commit" });
    await lastMessage(page);
    sessionOpen.load.push(Date.now() - start);
    await context.close();
  }

  const line = (label: string, values: number[], target?: number) => {
    const m = median(values);
    const verdict =
      target === undefined
        ? ""
        : m <= target
          ? `  ✓ under ${ms(target)}`
          : `  ✗ over ${ms(target)} (×${(m / target).toFixed(2)})`;
    console.log(
      `${label.padEnd(52)} ${ms(m).padStart(9)}   (min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))})${verdict}`,
    );
  };
  console.log(`\nbench:ui — ${RUNS} runs each, median; headless Chromium on loopback, production build\n`);
  line("reference: sign-in page, cold", reference.cold);
  line("reference: sign-in page, warm (reload)", reference.warm);
  line("IDE: explorer row visible, cold", ide.treeCold);
  // Monaco's code (~3.8 MB of script) loads from the IDE's first render on: when this comes after the
  // explorer row, the editor's code, not the click, is what the file waits for.
  line("IDE: editor code loaded and run, cold", ide.editorCodeCold);
  line("IDE interactive (file open, Monaco editable), cold", ide.cold, TARGET_IDE_COLD_MS);
  line("IDE interactive (file open, Monaco editable), warm", ide.warm);
  line("IDE Quick Open → file text, cold", ide.quickOpen, TARGET_IDE_COLD_MS);
  line("IDE Quick Open → file text, cold, fresh server", quickOpenFresh, TARGET_IDE_COLD_MS);
  line(
    `session of ${(TURNS * 10).toLocaleString("en-US")} events: click → last event visible`,
    sessionOpen.click,
    TARGET_SESSION_MS,
  );
  line(`session of ${(TURNS * 10).toLocaleString("en-US")} events: page load → last event visible`, sessionOpen.load);
  console.log(
    `\nIDE cold vs reference cold: ×${(median(ide.cold) / median(reference.cold)).toFixed(2)}; Quick Open cold vs reference cold: ×${(median(ide.quickOpen) / median(reference.cold)).toFixed(2)}; fresh server: ×${(median(quickOpenFresh) / median(reference.cold)).toFixed(2)}`,
  );
  console.log(
    `IDE first cold load until editable: ${firstLoad.requests} requests, ${firstLoad.scripts} scripts, ${Math.round(firstLoad.scriptKb).toLocaleString("en-US")} kB of script on the wire`,
  );
  console.log(
    `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; cores: ${os.cpus().length}; ${await describeChromium(browser)}`,
  );
} finally {
  await browser?.close();
  await stopTandem(tandem);
  await pg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
