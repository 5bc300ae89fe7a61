// Tandem's terminal against code-server's, measured the same way in the same run. Run with
// `npm run bench:code-server [MB] [rounds]` after `npm run build`. Figures only: nothing here fails a build.
//
// Both apps run on loopback as a person runs them: Tandem's production server (with its sandbox
// when bubblewrap is there) and code-server 4.100.3 (installed once from the npm registry into
// ~/.cache/tandem-bench, see code-server-install.ts; CODE_SERVER_DIR names another copy). Each
// opens a folder holding the same file in headless Chromium; the terminal is opened from the
// keyboard (Ctrl+`), and `cat bench.txt; echo DONE-$((…))` is typed into it. Timed from the Enter
// key until the echoed marker is drawn in the terminal's rows, so the whole path counts: PTY,
// server, WebSocket, xterm's parser and its DOM renderer (code-server's GPU acceleration is off,
// as headless Chromium has no GPU; Tandem draws with the DOM renderer too). Rounds alternate
// between the two apps so that both see the same machine.
import { execFileSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { chromiumLaunchOptions, describeChromium } from "../e2e/chromium";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { CODE_SERVER_NODE, CODE_SERVER_VERSION, ensureCodeServer } from "./code-server-install";
import { startCodeServer, stopCodeServer } from "./code-server-run";
import { writeFloodFile } from "./flood-file";
import { api, signUp, startTandem, stopTandem } from "./tandem-server";

const FILE_MB = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 3);
const TARGET_RATIO = 5;
const TIMEOUT_MS = 300_000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

/** Opens the app's terminal from the keyboard until its prompt shows; returns the terminal's rows selector. */
async function openTerminal(page: Page, ready: string, rows: string): Promise<void> {
  await page.locator(ready).first().waitFor({ timeout: 120_000 });
  const deadline = Date.now() + 60_000;
  while (
    !(
      await page
        .locator(rows)
        .first()
        .textContent()
        .catch(() => "")
    )?.match(/[$#]\s*$/m)
  ) {
    if (Date.now() > deadline) throw new Error(`no terminal prompt in ${rows}`);
    if (!(await page.locator(rows).count())) await page.keyboard.press("Control+Backquote");
    await page.waitForTimeout(500);
  }
}

/** Types the `cat` and times from Enter until the marker is drawn; returns MB/s. */
async function catThrough(page: Page, rows: string, bytes: number, round: number): Promise<number> {
  const value = 40_000 + round;
  await page.keyboard.type(`cat bench.txt; echo DONE-$((40000+${round}))`);
  const start = performance.now();
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    ([selector, marker]) =>
      [...document.querySelectorAll(selector!)].some((element) => element.textContent?.includes(marker!)),
    [rows, `DONE-${value}`],
    { polling: 50, timeout: TIMEOUT_MS },
  );
  return bytes / 1e6 / ((performance.now() - start) / 1000);
}

const home = mkdtempSync(path.join(os.tmpdir(), "tandem-bench-code-server-"));
const pg = await startEmbeddedPostgres(path.join(home, "db"));
let tandem: ChildProcess | undefined;
let codeServer: ChildProcess | undefined;
let browser: Browser | undefined;
try {
  const codeServerDir = ensureCodeServer((line) => console.log(line));
  const folder = path.join(home, "folder");
  mkdirSync(folder);
  const { bytes } = writeFloodFile(folder, FILE_MB);

  const started = await startTandem(path.join(home, "tandem"), pg.url);
  tandem = started.child;
  const cookie = await signUp(started.base);
  const project = await api(started.base, cookie)<{ id: string }>("mutation", "project.create", { name: "Bench" });
  writeFloodFile(path.join(home, "tandem", "workspaces", project.id), FILE_MB);
  // Tandem runs its terminals in bubblewrap when the machine has it, as it does for a person.
  const sandbox = (await bwrapAvailable()) ? "bwrap" : "none";

  const cs = await startCodeServer(codeServerDir, folder, home);
  codeServer = cs.child;

  browser = await chromium.launch(await chromiumLaunchOptions());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies(
    cookie
      .split("; ")
      .map((pair) => ({ name: pair.split("=")[0]!, value: pair.split("=").slice(1).join("="), url: started.base })),
  );

  const tandemPage = await context.newPage();
  await tandemPage.goto(`${started.base}/p/${project.id}`);
  const tandemRows = "[data-testid=terminal] .xterm-rows";
  await openTerminal(tandemPage, "[data-testid=project-title]", tandemRows);

  const codePage = await context.newPage();
  await codePage.goto(cs.url);
  const codeRows = ".terminal-wrapper .xterm-rows";
  await openTerminal(codePage, ".monaco-workbench", codeRows);

  const rates = { tandem: [] as number[], codeServer: [] as number[] };
  console.log(
    `file: ${(bytes / 1e6).toFixed(0)} MB; Tandem sandbox: ${sandbox}; code-server ${CODE_SERVER_VERSION} on Node ${execFileSync(CODE_SERVER_NODE, ["--version"]).toString().trim()}, Tandem on ${process.version}; cores: ${os.cpus().length}`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    await codePage.bringToFront();
    rates.codeServer.push(await catThrough(codePage, codeRows, bytes, round));
    await tandemPage.bringToFront();
    rates.tandem.push(await catThrough(tandemPage, tandemRows, bytes, round));
    console.log(
      `round ${round}: code-server ${rates.codeServer.at(-1)!.toFixed(1)} MB/s, Tandem ${rates.tandem.at(-1)!.toFixed(1)} MB/s; load ${load()}`,
    );
  }
  const ratio = median(rates.tandem) / median(rates.codeServer);
  console.log("");
  console.log("| `cat` in the terminal, PTY to drawn rows | MB/s (median) | ratio | target |");
  console.log("|---|---|---|---|");
  console.log(`| code-server ${CODE_SERVER_VERSION} (reference) | ${median(rates.codeServer).toFixed(1)} | 1.00 | |`);
  console.log(`| Tandem | ${median(rates.tandem).toFixed(1)} | ${ratio.toFixed(2)}x | >= ${TARGET_RATIO}x |`);
  console.log(`${ROUNDS} alternating rounds; load average ${load()}; ${await describeChromium(browser)}`);
} finally {
  await browser?.close();
  await stopCodeServer(codeServer);
  await stopTandem(tandem);
  await pg.stop();
  rmSync(home, { recursive: true, force: true });
}
