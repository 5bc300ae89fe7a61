// What a browser benchmark can print about one page load, to say where its time went: the
// requests as a waterfall (bench:ui, bench:open), a CPU profile of the page's main thread, and
// Chromium's performance trace of it.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page, Request } from "@playwright/test";

/** Requests and script bytes (as sent, compressed) that a page loads until `stop`; `print` lists them as a waterfall. */
export function countLoads(page: Page, print: boolean) {
  const start = Date.now();
  const finished: Array<Promise<{ script: boolean; bytes: number; line: string }>> = [];
  const describe = (request: Request) => ({
    from: Math.max(0, Math.round(request.timing().startTime) - start),
    url: request
      .url()
      .replace(/^https?:\/\/[^/]+/, "")
      .slice(0, 110),
  });
  const onFinished = (request: Request) => {
    const end = Date.now() - start;
    finished.push(
      request.sizes().then(
        (sizes) => {
          const { from, url } = describe(request);
          const line = `${String(from).padStart(6)} → ${String(end).padStart(6)} ms  ${String(Math.round(sizes.responseBodySize / 1000)).padStart(5)} kB  ${request.timing().responseEnd > 0 ? "" : "(no timing) "}${url}`;
          return { script: request.resourceType() === "script", bytes: sizes.responseBodySize, line };
        },
        // A request whose sizes are unknown (aborted, or its page gone) still shows with its timing.
        () => {
          const { from, url } = describe(request);
          return {
            script: false,
            bytes: 0,
            line: `${String(from).padStart(6)} → ${String(end).padStart(6)} ms  (no sizes) ${url}`,
          };
        },
      ),
    );
  };
  page.on("requestfinished", onFinished);
  return {
    async stop() {
      page.off("requestfinished", onFinished);
      const all = await Promise.all(finished);
      if (print)
        console.log(`requests of the load (start → finish, ms from navigation):\n${all.map((r) => r.line).join("\n")}`);
      const scripts = all.filter((r) => r.script);
      return {
        requests: all.length,
        scripts: scripts.length,
        scriptKb: scripts.reduce((sum, r) => sum + r.bytes, 0) / 1000,
      };
    },
  };
}

/** Samples the page's main thread until `stop`, which writes the profile (open it in Chrome's DevTools) into `dir` and returns its file. */
export async function profileMainThread(page: Page, dir: string, name: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return {
    async stop(): Promise<string> {
      const { profile } = await cdp.send("Profiler.stop");
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${name}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/**
 * Records Chromium's performance trace of the page (what DevTools' Performance panel records: tasks,
 * script, style, layout and paint, and the renderer's calls to the browser process) until `stop`,
 * which writes it into `dir` (open it in DevTools or ui.perfetto.dev) and returns its file.
 */
export async function tracePage(browser: Browser, page: Page, dir: string, name: string) {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${Date.now()}.json`);
  await browser.startTracing(page, {
    path: file,
    categories: [
      "devtools.timeline",
      "disabled-by-default-devtools.timeline",
      "disabled-by-default-devtools.timeline.stack",
      "v8.execute",
      "blink",
      "blink.user_timing",
      "loading",
      "toplevel",
      "mojom",
      "ipc",
      "fonts",
    ],
  });
  return {
    async stop(): Promise<string> {
      await browser.stopTracing();
      return file;
    },
  };
}
