import { z } from "zod";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { defineTool, type ToolContext } from "./define-tool";
import { type Fetched, fetchLimits, guardedFetch, parseUrl } from "./guarded-fetch";
import { htmlToMarkdown, parseHtml } from "./html-to-markdown";
import { projectNetwork } from "./project-network";
import { ToolFailure, ok } from "./result";

// web_crawl: reads a site from one page on, following its links breadth-first within the same
// origin, up to a depth and a number of pages. Every request is web_fetch's (guarded-fetch.ts):
// the project's network policy and the address check on each hop, its time and size limits. A
// redirect off the site is not followed further; robots.txt's rules for every agent are obeyed.

const MAX_PAGES = 30;
const PAGE_CHARS = 12_000;

const DESCRIPTION = `Reads a website from url on, following links within the same site (scheme, host and port) breadth-first: max_depth link hops (default 1, at most 3), max_pages pages (default 10, at most ${MAX_PAGES}); path_prefix keeps it under a path such as /docs/. Each page comes back as Markdown. Same limits and network policy as web_fetch; robots.txt is obeyed.`;

const input = z.object({
  url: z.string().min(1).describe("The first page (http or https)."),
  max_depth: z.number().int().min(0).max(3).optional(),
  max_pages: z.number().int().min(1).max(MAX_PAGES).optional(),
  path_prefix: z.string().startsWith("/").max(500).optional(),
});

type Page = { url: string; depth: number; title: string; text: string };

export const webCrawlTool = defineTool({
  name: "web_crawl",
  kind: "fetch",
  description: DESCRIPTION,
  input,
  onDemand: "always",
  describe: (i) => `Crawl ${i.url}`,
  async execute(i, ctx) {
    const start = parseUrl(i.url);
    const maxDepth = i.max_depth ?? 1;
    const maxPages = i.max_pages ?? 10;
    const prefix = i.path_prefix ?? "/";
    const project = await projectNetwork(ctx);
    const disallowed = await robotsRules(start, ctx, project);
    const within = (url: URL) =>
      url.origin === start.origin &&
      url.pathname.startsWith(prefix) &&
      !disallowed.some((d) => url.pathname.startsWith(d));
    if (!within(start))
      throw new ToolFailure("DENIED", `${start} is outside path_prefix or disallowed by the site's robots.txt.`);
    const queue: { url: URL; depth: number }[] = [{ url: start, depth: 0 }];
    const seen = new Set([key(start)]);
    const pages: Page[] = [];
    const skipped: string[] = [];
    while (queue.length > 0 && pages.length < maxPages) {
      const { url, depth } = queue.shift()!;
      ctx.emit({ type: "status", text: `Crawling ${url} (${pages.length + 1}/${maxPages})` });
      let page: Fetched;
      try {
        page = await guardedFetch(url.toString(), ctx.fetchPolicy, fetchLimits(ctx.fetchPolicy), ctx.signal, project);
      } catch (error) {
        // The first page's refusal is the answer; a later one is noted and the crawl goes on.
        if (pages.length === 0 || ctx.signal.aborted) throw error;
        skipped.push(`${url}: ${(error as Error).message.split("\n")[0]}`);
        continue;
      }
      const landed = new URL(page.url);
      if (!within(landed)) {
        skipped.push(`${url}: redirected off the site to ${landed}`);
        continue;
      }
      if (page.status >= 400) {
        skipped.push(`${url}: HTTP ${page.status}`);
        continue;
      }
      const type = page.contentType.split(";")[0]!.trim().toLowerCase();
      const html = type === "text/html" || type === "application/xhtml+xml";
      if (!html && !type.startsWith("text/")) {
        skipped.push(`${url}: ${type}, not a page`);
        continue;
      }
      const body = page.body.toString("utf8");
      const converted = html ? await htmlToMarkdown(body, page.url) : { title: "", markdown: body };
      pages.push({ url: page.url, depth, title: converted.title, text: cut(converted.markdown) });
      if (!html || depth >= maxDepth) continue;
      for (const link of await linksOf(body, landed)) {
        if (!within(link) || seen.has(key(link))) continue;
        seen.add(key(link));
        queue.push({ url: link, depth: depth + 1 });
      }
    }
    const left = queue.length;
    const sections = pages.map((p) => `## ${p.title || p.url}\nURL: ${p.url} (depth ${p.depth})\n\n${p.text}`);
    const notes = [
      ...(left ? [`${left} more link(s) on the site were not read (max_pages ${maxPages}).`] : []),
      ...(skipped.length ? [`Not read: ${skipped.join("; ")}`] : []),
    ];
    const text = [`Crawled ${pages.length} page(s) of ${start.origin}.`, ...sections, ...notes].join("\n\n");
    return ok(
      text,
      { kind: "markdown", text },
      { pages: pages.length, urls: pages.map((p) => p.url), skipped: skipped.length, unread: left },
    );
  },
});

/** The same page whatever its fragment. */
const key = (url: URL) => `${url.origin}${url.pathname}${url.search}`;

function cut(text: string): string {
  return text.length > PAGE_CHARS ? `${text.slice(0, PAGE_CHARS)}\n[Page cut at ${PAGE_CHARS} characters.]` : text;
}

async function linksOf(html: string, base: URL): Promise<URL[]> {
  const { document } = await parseHtml(html);
  const links: URL[] = [];
  for (const a of document.querySelectorAll("a[href]")) {
    try {
      const url = new URL(a.getAttribute("href") ?? "", base);
      url.hash = "";
      if (url.protocol === "http:" || url.protocol === "https:") links.push(url);
    } catch {
      // Not a URL: not followed.
    }
  }
  return links;
}

/** The Disallow paths robots.txt sets for every agent ("User-agent: *"); none when it has none or cannot be read. */
async function robotsRules(start: URL, ctx: ToolContext, project: NetworkPolicy): Promise<string[]> {
  const limits = { ...fetchLimits(ctx.fetchPolicy), maxBytes: 512 * 1024, maxRedirects: 0 };
  const robots = await guardedFetch(
    new URL("/robots.txt", start).toString(),
    ctx.fetchPolicy,
    limits,
    ctx.signal,
    project,
  )
    .then((r) => (r.status === 200 ? r.body.toString("utf8") : ""))
    .catch(() => "");
  const rules: string[] = [];
  let forAll = false;
  let inAgents = false;
  for (const raw of robots.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, "").trim();
    const [field, ...rest] = line.split(":");
    const value = rest.join(":").trim();
    const name = field?.trim().toLowerCase();
    if (name === "user-agent") {
      forAll = inAgents ? forAll || value === "*" : value === "*";
      inAgents = true;
    } else if (name) {
      inAgents = false;
      if (forAll && name === "disallow" && value) rules.push(value);
    }
  }
  return rules;
}
