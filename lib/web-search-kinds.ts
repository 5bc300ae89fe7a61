// The web search services (lib/web-search-config.ts) and their names, without the config's schema:
// the new-session form on the IDE's first screen names the one in use, and the first screen loads
// no zod (docs/ide.md, "Opening a file").

export const WEB_SEARCH_KINDS = ["searxng", "brave", "tavily", "duckduckgo"] as const;
export type WebSearchKind = (typeof WEB_SEARCH_KINDS)[number];

export const WEB_SEARCH_LABELS: Record<WebSearchKind, string> = {
  searxng: "SearXNG",
  brave: "Brave Search",
  tavily: "Tavily",
  duckduckgo: "DuckDuckGo",
};
