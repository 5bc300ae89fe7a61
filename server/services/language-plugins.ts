import type { Db } from "@/server/db/client";
import { getToolSettings } from "@/server/db/repositories/tool-settings";
import { languagePluginsSchema, type LanguagePlugins } from "@/lib/language-plugins";
import { pluginSpecs, type LanguageServerSpec } from "@/server/language/registry";

// The language servers configuration adds to a project: the server admin's (TANDEM_LANGUAGE_SERVERS)
// and the project's own (its settings), the project's winning on a shared name. Asked before each
// language query, so it is cached for a moment.

const FRESH_MS = 3_000;

export function languagePlugins(db: Db, admin: LanguagePlugins) {
  const cache = new Map<string, { at: number; specs: Promise<readonly LanguageServerSpec[]> }>();
  return (projectId: string): Promise<readonly LanguageServerSpec[]> => {
    const hit = cache.get(projectId);
    if (hit && Date.now() - hit.at < FRESH_MS) return hit.specs;
    const specs = getToolSettings(db, projectId).then((row) => {
      // Stored only after parsing; read defensively all the same (a row from an older version).
      const own = languagePluginsSchema.safeParse(row.languageServers).data ?? {};
      return pluginSpecs({ ...admin, ...own });
    });
    cache.set(projectId, { at: Date.now(), specs });
    return specs;
  };
}
