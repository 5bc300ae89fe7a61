import { z } from "zod";

// Which web search service the agent's web_search tool uses: SearXNG (a URL), Brave or Tavily (an
// API key), or DuckDuckGo (its HTML results page, no key); `url` overrides the service's endpoint,
// for a proxy. Set by environment variables
// (server/env/) or by an admin on the admin page, which wins over the environment.

export { WEB_SEARCH_KINDS, WEB_SEARCH_LABELS, type WebSearchKind } from "@/lib/web-search-kinds";

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });

export const webSearchBackendSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("searxng"), url: httpUrl }),
  z.object({
    kind: z.literal("brave"),
    apiKey: z.string().trim().min(1, "an API key is needed"),
    url: httpUrl.optional(),
  }),
  z.object({
    kind: z.literal("tavily"),
    apiKey: z.string().trim().min(1, "an API key is needed"),
    url: httpUrl.optional(),
  }),
  z.object({ kind: z.literal("duckduckgo"), url: httpUrl.optional() }),
]);
export type WebSearchBackendConfig = z.infer<typeof webSearchBackendSchema>;
