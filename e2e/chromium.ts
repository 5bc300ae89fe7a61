// Which Chromium the browser tests (playwright.config.ts) and the browser benchmarks (bench/) drive.
// In order: a system Chromium (Debian's /usr/bin/chromium, Ubuntu's chromium-browser), then
// Playwright's own download if someone installed it, then the Chromium that the npm package
// @sparticuz/chromium carries, so that a machine with only Node and npm runs the browser tests too
// (Playwright's own download needs a host outside the npm registry).
//
// E2E_CHROMIUM chooses by hand: `npm` skips the system and Playwright browsers (this is how the
// npm fallback is tested on a machine that has a system Chromium), a path names a binary.
import { spawn } from "node:child_process";
import { createReadStream, existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { chromium, type Browser, type LaunchOptions } from "@playwright/test";

/**
 * Features Playwright 1.65 turns off (its chromiumSwitches.ts). Chromium reads only the last
 * --disable-features it is given, so a launch that turns off one more feature has to repeat these;
 * e2e/chromium.test.ts checks that the list still covers what Playwright passes.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * The omnibox's suggestion popups, which a full Chromium (as Debian ships it) renders as web pages
 * ahead of use: in headless mode every new browser context got a renderer of its own that spent
 * about a second of CPU building a popup nobody sees, beside the page under test. On two cores that
 * slowed what the tests and benchmarks measure: in bench:ui the sign-in page's cold load went from
 * 880 to 375 ms without it, the IDE's from 2.23 to 1.98 s.
 */
export const UNSEEN_BROWSER_UI_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

/**
 * Flags that suit a desktop, a container running as root and CI alike: no setuid sandbox (root in a
 * container cannot use it), no GPU, none of the background traffic to Google's hosts, and no
 * browser UI rendered behind the page.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNSEEN_BROWSER_UI_FEATURES].join(",")}`,
];

const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export type ChromiumSource = "system" | "playwright" | "npm" | "chosen";

export interface FoundChromium {
  executablePath: string;
  source: ChromiumSource;
  /** Extra environment for the browser process (the npm Chromium's own libraries). */
  env?: Record<string, string>;
}

export async function findChromium(choice = process.env.E2E_CHROMIUM): Promise<FoundChromium> {
  if (choice && choice !== "npm") {
    if (!existsSync(choice)) throw new Error(`E2E_CHROMIUM=${choice}: no such file`);
    return { executablePath: choice, source: "chosen" };
  }
  if (choice !== "npm") {
    const system = SYSTEM_CHROMIUM.find((candidate) => existsSync(candidate));
    if (system) return { executablePath: system, source: "system" };
    const downloaded = chromium.executablePath();
    if (existsSync(downloaded)) return { executablePath: downloaded, source: "playwright" };
  }
  return npmChromium();
}

/** Launch options for Playwright: the Chromium found, the shared flags, and its environment. */
export async function chromiumLaunchOptions(): Promise<LaunchOptions> {
  const found = await findChromium();
  return {
    executablePath: found.executablePath,
    args: CHROMIUM_ARGS,
    ...(found.env ? { env: { ...process.env, ...found.env } as Record<string, string> } : {}),
  };
}

/**
 * Which Chromium a benchmark ran, for its output: the npm package's build and Debian's differ by
 * about a quarter in bench:ui (the sign-in page's cold load took 190 ms in one, 250 ms in the
 * other, on the same machine the same morning), so figures mean little without it.
 */
export async function describeChromium(browser: Browser): Promise<string> {
  const found = await findChromium();
  return `Chromium ${browser.version()} (${found.source}: ${found.executablePath})`;
}

// @sparticuz/chromium unpacks its brotli-packed binary to <tmp>/chromium on first use. It is built
// for Amazon Linux and links NSS and expat, which a bare Debian lacks; the package carries them in
// al2023.tar.br but unpacks them only on AWS, so they are unpacked here and put on the library path.
// They go first on the path on every machine, so the binary runs the same everywhere.
async function npmChromium(): Promise<FoundChromium> {
  const { default: packaged } = await import("@sparticuz/chromium");
  const executablePath = await packaged.executablePath();
  // The package exports only its entry (build/cjs/index.cjs), three levels below its folder.
  const packageDir = path.resolve(createRequire(import.meta.url).resolve("@sparticuz/chromium"), "../../..");
  const libDir = path.join(tmpdir(), "al2023", "lib");
  if (!existsSync(path.join(libDir, "libnss3.so")))
    await untarBrotli(path.join(packageDir, "bin", "al2023.tar.br"), path.dirname(libDir));
  const env: Record<string, string> = {
    LD_LIBRARY_PATH: [libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
  };
  // A machine without fontconfig's setup gets the fonts the package unpacked beside the binary.
  if (!process.env.FONTCONFIG_PATH && !existsSync("/etc/fonts/fonts.conf"))
    env.FONTCONFIG_PATH = path.join(tmpdir(), "fonts");
  return { executablePath, source: "npm", env };
}

// The system's tar does the unpacking: Node has brotli but no tar reader, and the package's own
// extractor is internal to it.
async function untarBrotli(archive: string, into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  const tar = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve, reject) => {
    tar.on("error", reject);
    tar.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code} unpacking ${archive}`))));
  });
  // tar stops reading at the archive's end marker and may close its input before the padding after
  // it has been written: its exit status, not the pipe, says whether the unpacking worked.
  const fed = pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin).catch(() => undefined);
  await Promise.all([exited, fed]);
}
