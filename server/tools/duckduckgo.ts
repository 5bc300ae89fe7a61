import { parseHtml } from "./html-to-markdown";
import { request } from "undici";
import { ToolFailure } from "./result";

// DuckDuckGo as a web_search backend: its HTML results page (no API key, no account), parsed for
// the organic results; ads are left out, and its redirect links are unwrapped to the target.

export const DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/";

export type Hit = { title: string; url: string; snippet: string };

export async function searchDuckDuckGo(
  endpoint: string | undefined,
  query: string,
  limit: number,
  signal: AbortSignal,
): Promise<Hit[]> {
  const url = new URL(endpoint ?? DUCKDUCKGO_URL);
  url.searchParams.set("q", query);
  const response = await request(url, {
    headers: { accept: "text/html", "user-agent": "Mozilla/5.0 (compatible; Tandem web_search)" },
    signal,
  });
  const html = await response.body.text();
  if (response.statusCode >= 400)
    throw new ToolFailure(
      "UNAVAILABLE",
      `DuckDuckGo answered HTTP ${response.statusCode}. Try again later, or use web_fetch on a known site.`,
    );
  return (await parseDuckDuckGo(html)).slice(0, limit);
}

/** The organic results of a DuckDuckGo HTML page. */
export async function parseDuckDuckGo(html: string): Promise<Hit[]> {
  const { document } = await parseHtml(html);
  const hits: Hit[] = [];
  for (const result of document.querySelectorAll(".result")) {
    if (result.classList.contains("result--ad")) continue;
    const link = result.querySelector("a.result__a");
    const href = link?.getAttribute("href");
    if (!link || !href) continue;
    const target = unwrap(href);
    if (!target) continue;
    hits.push({
      title: clean(link.textContent),
      url: target,
      snippet: clean(result.querySelector(".result__snippet")?.textContent),
    });
  }
  return hits;
}

/** "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com&rut=…" → "https://example.com"; null for anything not http(s). */
function unwrap(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com");
  } catch {
    return null;
  }
  const wrapped = url.pathname === "/l/" ? url.searchParams.get("uddg") : null;
  const target = wrapped ?? url.toString();
  return /^https?:\/\//i.test(target) ? target : null;
}

const clean = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();
