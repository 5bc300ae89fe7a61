import type { WebSearchBackendConfig } from "@/lib/web-search-config";
import type { WebSearchBackend } from "@/server/tools/define-tool";

/** The web search service in force: the admin's (admin page), else the environment's; undefined when none. */
export function chooseWebSearch(
  stored: WebSearchBackendConfig | null,
  fromEnv: WebSearchBackend | undefined,
): WebSearchBackend | undefined {
  return stored ?? fromEnv;
}
