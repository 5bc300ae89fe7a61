import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./chromium";
import {
  openBrowserGate,
  type BrowserGate,
  type BrowserGateDeps,
  type GateClient,
  type GateRefusal,
} from "./browser-gate";

// The agent's browsers: one headless Chromium for the server, started on first use, and one
// browser context per agent session (its cookies, its one page, what its page logged), closed
// when the session is released, after it sits unused, or when too many are open. Every
// connection goes through the gate (browser-gate.ts); the context holds no cookie but the
// preview sessions it is given for the session's acting person.

export type ConsoleEntry = { type: string; text: string; at: string };
export type FailedRequest = { url: string; method: string; error: string };

/** What the page logged, kept in bounded lists; `read*` mark how far the agent has read. */
export type PageLog = {
  console: ConsoleEntry[];
  failed: FailedRequest[];
  refused: GateRefusal[];
  popups: string[];
  readConsole: number;
  readFailed: number;
};

export type PreviewSession = { origin: string; cookie: { name: string; value: string; secure: boolean } };

export type BrowsersDeps = {
  chromium: string;
  gate: BrowserGateDeps;
  /**
   * A preview session for the person on the project's port, lasting as long as the agent session
   * `sessionId` (not any login of the person's), or null when previews are not served.
   */
  previewSession(projectId: string, port: number, userId: string, sessionId: string): PreviewSession | null;
  /** Defaults: 10 minutes unused, 8 contexts at once. */
  idleMs?: number;
  maxContexts?: number;
};

export type SessionBrowser = {
  page(): Promise<Page>;
  log: PageLog;
  /** The preview origin of the project's port, with this person's preview session in the context. */
  preview(port: number): Promise<string | null>;
  /** A URL as the agent knows it: a preview's as http://localhost:<port>/…, any other as it is. */
  local(url: string): string;
};

export type Browsers = {
  session(key: { sessionId: string; projectId: string; userId: string }): Promise<SessionBrowser>;
  /** Closes the session's context (the session ended). */
  release(sessionId: string): Promise<void>;
  close(): Promise<void>;
};

const LOG_LIMIT = 200;
const VIEWPORT = { width: 1280, height: 800 };

type Open = {
  key: { sessionId: string; projectId: string; userId: string };
  context: BrowserContext;
  client: GateClient;
  page: Page | null;
  log: PageLog;
  previews: Map<number, { origin: string; until: number }>;
  timer: NodeJS.Timeout | null;
  used: number;
};

const push = <T>(list: T[], item: T) => {
  list.push(item);
  if (list.length > LOG_LIMIT) list.splice(0, list.length - LOG_LIMIT);
};

export function createBrowsers(deps: BrowsersDeps): Browsers {
  const idleMs = deps.idleMs ?? 10 * 60_000;
  const maxContexts = deps.maxContexts ?? 8;
  let started: Promise<{ browser: Browser; gate: BrowserGate }> | null = null;
  const open = new Map<string, Open>();
  const opening = new Map<string, Promise<Open>>();

  const start = () => {
    started ??= (async () => {
      const gate = await openBrowserGate(deps.gate);
      try {
        const browser = await launchChromium(deps.chromium, gate.server);
        // A browser that dies (crash, killed) is started again on next use.
        browser.on("disconnected", () => {
          started = null;
          open.clear();
          void gate.close();
        });
        return { browser, gate };
      } catch (error) {
        await gate.close();
        started = null;
        throw error;
      }
    })();
    return started;
  };

  async function closeOne(sessionId: string) {
    const entry = open.get(sessionId);
    if (!entry) return;
    open.delete(sessionId);
    if (entry.timer) clearTimeout(entry.timer);
    entry.client.release();
    await entry.context.close().catch(() => undefined);
  }

  const touch = (entry: Open) => {
    entry.used = Date.now();
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void closeOne(entry.key.sessionId), idleMs);
    entry.timer.unref();
  };

  async function make(key: Open["key"]): Promise<Open> {
    const { browser, gate } = await start();
    // Past the bound, the context used longest ago is closed first.
    while (open.size >= maxContexts) {
      const oldest = [...open.values()].sort((a, b) => a.used - b.used)[0]!;
      await closeOne(oldest.key.sessionId);
    }
    const log: PageLog = { console: [], failed: [], refused: [], popups: [], readConsole: 0, readFailed: 0 };
    const client = gate.client(key.projectId, (refusal) => push(log.refused, refusal));
    const context = await browser.newContext({
      proxy: { server: gate.server, bypass: "<-loopback>", username: client.username, password: client.password },
      viewport: VIEWPORT,
      acceptDownloads: false,
      serviceWorkers: "block",
      bypassCSP: false,
    });
    const entry: Open = { key, context, client, page: null, log, previews: new Map(), timer: null, used: Date.now() };
    // One page: a popup the page opens is closed at once, and said so.
    context.on("page", (page) => {
      if (entry.page && page !== entry.page) {
        push(log.popups, page.url());
        void page.close().catch(() => undefined);
      }
    });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(30_000);
    return entry;
  }

  const watch = (page: Page, log: PageLog) => {
    page.on("console", (message) =>
      push(log.console, { type: message.type(), text: message.text().slice(0, 2000), at: message.location().url }),
    );
    page.on("pageerror", (error) => push(log.console, { type: "error", text: String(error.stack ?? error), at: "" }));
    page.on("requestfailed", (request) =>
      push(log.failed, {
        url: request.url(),
        method: request.method(),
        error: request.failure()?.errorText ?? "failed",
      }),
    );
    page.on("response", (response) => {
      if (response.status() >= 400)
        push(log.failed, {
          url: response.url(),
          method: response.request().method(),
          error: `HTTP ${response.status()}`,
        });
    });
  };

  return {
    async session(key) {
      let entry = open.get(key.sessionId);
      // Another person acting in the session gets a context of their own: no one acts with another's preview session.
      if (entry && (entry.key.userId !== key.userId || entry.key.projectId !== key.projectId)) {
        await closeOne(key.sessionId);
        entry = undefined;
      }
      if (!entry) {
        let pending = opening.get(key.sessionId);
        if (!pending) {
          pending = make(key).finally(() => opening.delete(key.sessionId));
          opening.set(key.sessionId, pending);
        }
        entry = await pending;
        open.set(key.sessionId, entry);
      }
      const current = entry;
      touch(current);
      return {
        log: current.log,
        async page() {
          touch(current);
          if (current.page && !current.page.isClosed()) return current.page;
          current.page = await current.context.newPage();
          watch(current.page, current.log);
          // Unused from when the page is there, however long making it took.
          touch(current);
          return current.page;
        },
        local(url) {
          for (const [port, { origin }] of current.previews)
            if (url === origin || url.startsWith(`${origin}/`))
              return `http://localhost:${port}${url.slice(origin.length)}`;
          return url;
        },
        async preview(port) {
          const known = current.previews.get(port);
          if (known && known.until > Date.now()) return known.origin;
          const made = deps.previewSession(key.projectId, port, key.userId, key.sessionId);
          if (!made) return null;
          const { origin, cookie } = made;
          await current.context.addCookies([
            {
              name: cookie.name,
              value: cookie.value,
              url: origin,
              httpOnly: true,
              secure: cookie.secure,
              sameSite: "Lax",
            },
          ]);
          // Made again well before the preview session's 8 hours are up.
          current.previews.set(port, { origin, until: Date.now() + 4 * 60 * 60_000 });
          return origin;
        },
      };
    },
    release: closeOne,
    async close() {
      const running = started;
      started = null;
      for (const id of [...open.keys()]) await closeOne(id);
      if (!running) return;
      const { browser, gate } = await running.catch(() => ({ browser: null, gate: null }));
      await browser?.close().catch(() => undefined);
      await gate?.close();
    },
  };
}
