import type { Locator, Page, Response } from "playwright-core";
import type { z } from "zod";
import { BROWSER_MAX_WAIT_MS, browserCall } from "@/lib/tool-call-shapes";
import { MAX_IMAGE_BYTES } from "@/lib/images";
import type { SessionBrowser } from "./agent-browser/session-browsers";
import { defineTool, type LlmPart, type ToolContext, type ToolResult } from "./define-tool";
import { ToolFailure } from "./result";
import { formatSize } from "./text-window";

const DESCRIPTION = `A headless browser (Chromium on Tandem's server) to look at the web app you are building, as a person would.
- navigate: open url. The workspace's servers are http://localhost:<port>/path (start the server first with the shell, in the background); they open through the project's preview, as the person you work for. Other sites only as the project's network policy allows. Only http and https.
- screenshot: an image of the page (full_page for all of it). navigate, click, type and wait return one too.
- read: the page's text (format "text"), or its accessibility tree (format "accessibility": roles, names, states), to find what to click.
- click: the element matching selector (CSS) or text (its visible text or label).
- type: value into the field matching selector or text; submit presses Enter after.
- console: the console messages, page errors and failed requests since you last asked.
- wait: until "text" (text visible), "selector" (an element visible) or "network_idle", at most timeout_ms (default 10 s, at most 30 s).
One page per session; the page keeps its state between calls and turns. Popups are closed. Click and type count as changes: they may ask a person for approval.`;

const SETTLE_MS = 3_000;
const TEXT_CHARS = 60_000;

type Input = z.infer<typeof browserCall.input>;

const isChange = (input: Input) => input.action === "click" || input.action === "type";

export const browserTool = defineTool({
  ...browserCall,
  onDemand: "always",
  description: DESCRIPTION,
  mutates: isChange,
  needsApproval: isChange,
  output: { maxChars: TEXT_CHARS + 2_000 },
  async execute(input, ctx) {
    if (!ctx.browser)
      throw new ToolFailure("UNAVAILABLE", "This server has no browser for the agent (no Chromium is configured).");
    const browser = await ctx.browser().catch((error: unknown) => {
      throw new ToolFailure("UNAVAILABLE", `The browser could not start on the server: ${firstLine(error)}`);
    });
    const page = await browser.page();
    const consoleBefore = browser.log.console.length;
    const refusedBefore = browser.log.refused.length;
    switch (input.action) {
      case "navigate": {
        if (!input.url) throw new ToolFailure("INVALID_INPUT", "navigate needs url, e.g. http://localhost:5173/.");
        const url = await target(input.url, browser);
        ctx.emit({ type: "status", text: `Opening ${input.url}` });
        let response: Response | null = null;
        try {
          response = await page.goto(url, { waitUntil: "domcontentloaded" });
        } catch (error) {
          // The page moving on by itself (a refresh, a script) is where it is now, not a failure.
          if (!/interrupted by another navigation|ERR_ABORTED/.test(firstLine(error)))
            throw refusedOr(browser, refusedBefore, `Could not open ${input.url}: ${firstLine(error)}`);
        }
        await settle(page);
        // The page it ended on (after redirects) was refused by the gate: the refusal is the answer.
        const refused = refusalOf(browser, refusedBefore, new URL(response?.url() ?? page.url()).hostname);
        if (refused) throw refused;
        return withScreenshot(ctx, page, await summary(page, browser, consoleBefore, response));
      }
      case "screenshot":
        return withScreenshot(ctx, page, await summary(page, browser, consoleBefore), input.full_page === true);
      case "read": {
        const text =
          input.format === "accessibility"
            ? await page.locator("body").ariaSnapshot({ timeout: 10_000 })
            : // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator, and the page's text as shown (no scripts, no hidden parts) is the point
              await page.locator("body").innerText({ timeout: 10_000 });
        const cut = text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS)}\n[cut at ${TEXT_CHARS} characters]` : text;
        const head = `${await page.title()} — ${browser.local(page.url())}\n\n`;
        return { llm: head + cut, display: { kind: "text", text: head + cut } };
      }
      case "click":
      case "type": {
        const element = await locate(page, input);
        if (input.action === "click") await element.click({ timeout: 10_000 });
        else {
          if (input.value === undefined) throw new ToolFailure("INVALID_INPUT", "type needs value: the text to type.");
          await element.fill(input.value, { timeout: 10_000 });
          if (input.submit) await element.press("Enter");
        }
        await settle(page);
        return withScreenshot(ctx, page, await summary(page, browser, consoleBefore));
      }
      case "console":
        return consoleResult(browser);
      case "wait": {
        const timeout = input.timeout_ms ?? 10_000;
        try {
          if (input.until === "network_idle") await page.waitForLoadState("networkidle", { timeout });
          else if (input.until === "text" && input.text)
            await page.getByText(input.text).first().waitFor({ state: "visible", timeout });
          else if (input.until === "selector" && input.selector)
            await page.locator(input.selector).first().waitFor({ state: "visible", timeout });
          else
            throw new ToolFailure(
              "INVALID_INPUT",
              'wait needs until: "text" with text, "selector" with selector, or "network_idle".',
            );
        } catch (error) {
          if (error instanceof ToolFailure) throw error;
          throw new ToolFailure(
            "TIMEOUT",
            `Waited ${timeout} ms and it did not happen (${input.until} ${input.text ?? input.selector ?? ""}). Take a screenshot or read the page to see where it is; the most is ${BROWSER_MAX_WAIT_MS} ms.`,
          );
        }
        return withScreenshot(ctx, page, await summary(page, browser, consoleBefore));
      }
    }
  },
});

/** The URL to open: a workspace port (localhost) becomes the project's preview of it; only http and https. */
async function target(raw: string, browser: SessionBrowser): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolFailure(
      "INVALID_INPUT",
      `url: '${raw}' is not a URL. Give http://localhost:<port>/path or https://…`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ToolFailure("INVALID_INPUT", `url: only http and https pages are opened, not ${url.protocol}`);
  if (url.username || url.password)
    throw new ToolFailure("INVALID_INPUT", "url: URLs with credentials are not opened.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!["localhost", "127.0.0.1", "::1", "0.0.0.0"].includes(host)) return url.href;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const origin = await browser.preview(port);
  if (!origin)
    throw new ToolFailure(
      "UNAVAILABLE",
      "This server serves no previews of the workspace's ports (it needs bubblewrap and root for workspace networks), so its servers cannot be opened in the browser.",
    );
  return `${origin}${url.pathname}${url.search}${url.hash}`;
}

/** The element a click or type is for: by CSS selector, else by its visible text, label or role name. */
async function locate(page: Page, input: Input): Promise<Locator> {
  let element: Locator;
  if (input.selector) element = page.locator(input.selector);
  else if (input.text)
    element = page
      .getByRole("button", { name: input.text })
      .or(page.getByRole("link", { name: input.text }))
      .or(page.getByLabel(input.text))
      .or(page.getByPlaceholder(input.text))
      .or(page.getByText(input.text));
  else throw new ToolFailure("INVALID_INPUT", `${input.action} needs selector (CSS) or text (what the element shows).`);
  const count = await element.count();
  if (count === 0)
    throw new ToolFailure(
      "NOT_FOUND",
      `No element matches ${input.selector ?? `“${input.text}”`}. Read the page (format "accessibility") to see what is there.`,
    );
  return element.first();
}

/** After a change: the page's load, and its requests settling for a moment (not waited on past that). */
async function settle(page: Page) {
  await page.waitForLoadState("load", { timeout: SETTLE_MS }).catch(() => undefined);
  await page.waitForLoadState("networkidle", { timeout: SETTLE_MS }).catch(() => undefined);
}

async function summary(page: Page, browser: SessionBrowser, consoleBefore: number, response?: Response | null) {
  const lines = [`Page: ${(await page.title().catch(() => "")) || "(no title)"} — ${browser.local(page.url())}`];
  if (response) lines.push(`Status: HTTP ${response.status()}`);
  const errors = browser.log.console.slice(consoleBefore).filter((m) => m.type === "error");
  if (errors.length)
    lines.push(
      `${errors.length} console error(s) since this call began (action "console" to read them): ${errors[0]!.text.split("\n")[0]}`,
    );
  for (const popup of browser.log.popups.splice(0))
    lines.push(`A popup to ${browser.local(popup)} was closed: the browser keeps one page.`);
  return lines.join("\n");
}

async function withScreenshot(ctx: ToolContext, page: Page, text: string, fullPage = false): Promise<ToolResult> {
  let image = await page.screenshot({ type: "png", fullPage, timeout: 15_000 });
  let mediaType = "image/png";
  if (image.length > MAX_IMAGE_BYTES) {
    image = await page.screenshot({ type: "jpeg", quality: 60, fullPage, timeout: 15_000 });
    mediaType = "image/jpeg";
  }
  if (!ctx.modelAcceptsImages) {
    const note = `${text}\n[A screenshot (${formatSize(image.length)}) was taken, but the current model cannot view images: read the page instead.]`;
    return { llm: note, display: { kind: "text", text: note } };
  }
  const parts: LlmPart[] = [
    { type: "text", text },
    { type: "image", data: image.toString("base64"), mediaType },
  ];
  return { llm: parts, display: { kind: "text", text } };
}

function consoleResult(browser: SessionBrowser): ToolResult {
  const { log } = browser;
  const messages = log.console.slice(log.readConsole);
  const failed = log.failed.slice(log.readFailed);
  log.readConsole = log.console.length;
  log.readFailed = log.failed.length;
  const lines: string[] = [];
  lines.push(messages.length ? `Console (${messages.length}):` : "Console: nothing new.");
  for (const m of messages) lines.push(`[${m.type}] ${m.text}${m.at ? ` (${browser.local(m.at)})` : ""}`);
  lines.push(failed.length ? `Failed requests (${failed.length}):` : "Failed requests: none new.");
  for (const f of failed) lines.push(`${f.method} ${browser.local(f.url)}: ${f.error}`);
  const text = lines.join("\n");
  return { llm: text, display: { kind: "text", text } };
}

/** A refusal by the gate for this host since the call began, as the model's error. */
function refusalOf(browser: SessionBrowser, since: number, hostname: string): ToolFailure | null {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const refusal = browser.log.refused.slice(since).find((r) => r.host === host);
  if (!refusal) return null;
  const onList = refusal.reason.includes("allow-list");
  return new ToolFailure(
    onList ? "NETWORK_POLICY" : "BLOCKED_ADDRESS",
    `Tandem refused ${host}: ${refusal.reason}.${onList ? ` A project owner or admin can allow it in the project settings (Network), or with the "Allow ${host}" card in this session.` : ""}`,
    onList ? { deniedHosts: [host] } : undefined,
  );
}

function refusedOr(browser: SessionBrowser, since: number, message: string): ToolFailure {
  const refusal = browser.log.refused.slice(since)[0];
  return refusal
    ? (refusalOf(browser, since, refusal.host) ?? new ToolFailure("FETCH_FAILED", message))
    : new ToolFailure("FETCH_FAILED", message);
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
