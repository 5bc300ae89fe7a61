import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { BROWSER_IDENTITY, canSwitchIdentity, dropIdentity } from "@/server/sandbox/identity";

// Playwright is loaded when the agent first starts a browser (or no system Chromium is found), not
// at start-up: loaded, it weighs about 80 MB of the server's memory (+82 MB RSS, +28 MB of heap
// measured in a bare Node), which every idle server carried whether or not a browser ever ran.
const playwright = () => createRequire(import.meta.url)("playwright-core") as typeof import("playwright-core");

// Which Chromium the agent's browser drives, and how it starts. Configuration names one
// (TANDEM_BROWSER_CHROMIUM, server/env/), turns it off, or leaves it to be found: the system's
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
  const installed = playwright().chromium.executablePath();
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

/**
 * A server running as root starts Chromium as a uid of its own (BROWSER_IDENTITY), which owns none
 * of the server's files, with Chromium's own sandbox on (it cannot start as root): a wrapper that
 * hands Playwright's fresh profile folder to that uid and drops to it with setpriv, the pipe
 * Playwright drives it through kept open across the exec. Made once per binary, in a folder of its
 * own, with a home folder the uid owns.
 */
const wrappers = new Map<string, { wrapper: string; home: string }>();
function unprivileged(executablePath: string): { wrapper: string; home: string } {
  const made = wrappers.get(executablePath);
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), "tandem-browser-"));
  chmodSync(dir, 0o755);
  const { uid, gid } = BROWSER_IDENTITY;
  const home = path.join(dir, "home");
  mkdirSync(home, { mode: 0o700 });
  chownSync(home, uid, gid);
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const wrapper = path.join(dir, "chromium");
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `for a in "$@"; do case "$a" in --user-data-dir=*) chown -R ${uid}:${gid} "\${a#--user-data-dir=}";; esac; done`,
      `exec ${dropIdentity(BROWSER_IDENTITY).map(quote).join(" ")} ${quote(executablePath)} "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  wrappers.set(executablePath, { wrapper, home });
  return { wrapper, home };
}

export async function launchChromium(executablePath: string, proxy: string): Promise<Browser> {
  const dropped = canSwitchIdentity() ? unprivileged(executablePath) : null;
  return playwright().chromium.launch({
    executablePath: dropped?.wrapper ?? executablePath,
    chromiumSandbox: true,
    args: ARGS,
    // Per-context credentials go with each context's own proxy setting; the launch's is the default.
    proxy: { server: proxy, bypass: "<-loopback>" },
    // None of the server's environment (its secrets, its proxies) reaches the browser.
    env: dropped ? { HOME: dropped.home } : {},
    timeout: 30_000,
  });
}
