import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

// Which Chromium the agent's browser drives, and how it starts. Configuration names one
// (TANDEM_BROWSER_CHROMIUM, server/env.ts), turns it off, or leaves it to be found: the system's
// (Debian's /usr/bin/chromium, Ubuntu's chromium-browser), else the one Playwright installed
// (`npx playwright install chromium`, what the browser tests may use).

const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The Chromium to drive, or why there is none (said once at start-up; the tool is then not offered). */
export function findChromium(setting: string | undefined): { path: string } | { missing: string } {
  if (setting === "off") return { missing: "turned off (TANDEM_BROWSER_CHROMIUM=off)" };
  if (setting)
    return existsSync(setting) ? { path: setting } : { missing: `TANDEM_BROWSER_CHROMIUM=${setting}: no such file` };
  const system = SYSTEM_CHROMIUM.find((candidate) => existsSync(candidate));
  if (system) return { path: system };
  const installed = chromium.executablePath();
  if (installed && existsSync(installed)) return { path: installed };
  return {
    missing: `no Chromium found (looked for ${SYSTEM_CHROMIUM.join(", ")} and Playwright's own); install one (apt-get install chromium) or set TANDEM_BROWSER_CHROMIUM`,
  };
}

/**
 * Headless, no GPU, none of Chromium's own background traffic, no QUIC or WebRTC that would
 * leave beside the proxy, and every connection through the proxy, loopback included (Chromium
 * skips the proxy for loopback unless told `<-loopback>`).
 */
const ARGS = [
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--no-pings",
  "--dns-prefetch-disable",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--renderer-process-limit=8",
  "--js-flags=--max-old-space-size=512",
];

export async function launchChromium(executablePath: string, proxy: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    // Chromium's own sandbox cannot start as root, where the server usually runs (docs/security.md, Known limits).
    chromiumSandbox: process.getuid?.() !== 0,
    args: ARGS,
    // Per-context credentials go with each context's own proxy setting; the launch's is the default.
    proxy: { server: proxy, bypass: "<-loopback>" },
    // None of the server's environment (its secrets, its proxies) reaches the browser.
    env: {},
    timeout: 30_000,
  });
}
