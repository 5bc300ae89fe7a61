import type { Db } from "@/server/db/client";
import { getSetting, type SettingValue } from "@/server/db/repositories/settings";
import type { WebSearchBackend } from "@/server/tools/define-tool";

/** The web search service in force: the admin's (admin page), else the environment's; undefined when none. */
export async function webSearchBackend(
  db: Db,
  fromEnv: WebSearchBackend | undefined,
): Promise<WebSearchBackend | undefined> {
  return chooseWebSearch(await getSetting(db, "webSearch"), fromEnv);
}

/** The same choice from a setting already read (a turn's start reads it with others). */
export function chooseWebSearch(
  stored: SettingValue<"webSearch">,
  fromEnv: WebSearchBackend | undefined,
): WebSearchBackend | undefined {
  return stored ?? fromEnv;
}
