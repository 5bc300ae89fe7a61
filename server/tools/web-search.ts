import { request } from "undici";
import { z } from "zod";
import { defineTool, type WebSearchBackend } from "./define-tool";
import { searchDuckDuckGo } from "./duckduckgo";
import { networkOff, projectNetwork } from "./project-network";
import { ToolFailure, ok } from "./result";

const TIMEOUT_MS = 15_000;

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

const DESCRIPTION = `Searches the web and returns the top results, each with title, URL and snippet.
Use it for current information, documentation and error messages; then read a promising result with web_fetch.
The query goes to the search service the server's admin configured; with the project's network policy "off" nothing is searched.`;

async function getJson(
  url: string,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string },
  signal: AbortSignal,
): Promise<unknown> {
  const response = await request(url, {
    method: init.method ?? "GET",
    headers: { accept: "application/json", ...init.headers },
    body: init.body,
    signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
  });
  const text = await response.body.text();
  if (response.statusCode >= 400) {
    throw new ToolFailure(
      "UNAVAILABLE",
      `The search service answered HTTP ${response.statusCode}: ${text.slice(0, 300)}. Try again later, or use web_fetch on a known site.`,
    );
  }
  return JSON.parse(text) as unknown;
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** One query against the configured backend, normalized to title / url / snippet. */
export async function searchWeb(
  backend: WebSearchBackend,
  query: string,
  limit: number,
  signal: AbortSignal,
): Promise<SearchHit[]> {
  switch (backend.kind) {
    case "searxng": {
      const url = new URL("search", backend.url.endsWith("/") ? backend.url : `${backend.url}/`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const data = (await getJson(url.toString(), {}, signal)) as { results?: Row[] };
      return (data.results ?? [])
        .slice(0, limit)
        .map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) }));
    }
    case "brave": {
      const url = new URL(backend.url ?? "https://api.search.brave.com/res/v1/web/search");
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(limit));
      const data = (await getJson(url.toString(), { headers: { "x-subscription-token": backend.apiKey } }, signal)) as {
        web?: { results?: Row[] };
      };
      return (data.web?.results ?? [])
        .slice(0, limit)
        .map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.description) }));
    }
    case "tavily": {
      const data = (await getJson(
        backend.url ?? "https://api.tavily.com/search",
        {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${backend.apiKey}` },
          body: JSON.stringify({ query, max_results: limit }),
        },
        signal,
      )) as { results?: Row[] };
      return (data.results ?? [])
        .slice(0, limit)
        .map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) }));
    }
    case "duckduckgo":
      return searchDuckDuckGo(backend.url, query, limit, AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]));
  }
}

export const webSearchTool = defineTool({
  name: "web_search",
  kind: "fetch",
  description: DESCRIPTION,
  input: z.object({
    query: z.string().min(1).max(400).describe("What to search for."),
    limit: z.number().int().min(1).max(20).optional().describe("How many results (default 5)."),
  }),
  describe: (input) => `Search the web for ${JSON.stringify(input.query)}`,
  async execute(input, ctx) {
    if (!ctx.webSearch) throw new ToolFailure("UNAVAILABLE", "No web search service is configured for this server.");
    // The query carries the project's words out, so "off" stops it; any other policy lets it go to
    // the admin's service (its results are only links, which web_fetch checks against the policy).
    if ((await projectNetwork(ctx)).policy === "off") throw networkOff("web_search");
    const hits = await searchWeb(ctx.webSearch, input.query, input.limit ?? 5, ctx.signal).catch((error: unknown) => {
      if (error instanceof ToolFailure || ctx.signal.aborted) throw error;
      throw new ToolFailure("UNAVAILABLE", `The search service could not be reached: ${(error as Error).message}`);
    });
    if (hits.length === 0)
      return ok(`No results for ${JSON.stringify(input.query)}. Try other words.`, undefined, { results: 0 });
    const text = hits
      .map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}\n   ${h.snippet.replace(/\s+/g, " ").trim()}`)
      .join("\n");
    return ok(
      text,
      { kind: "table", columns: ["Title", "URL", "Snippet"], rows: hits.map((h) => [h.title, h.url, h.snippet]) },
      { results: hits.length },
    );
  },
});
