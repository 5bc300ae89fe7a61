import type { Db } from "@/server/db/client";
import { getSetting } from "@/server/db/repositories/settings";
import type { WebSearchBackend } from "@/server/tools/define-tool";

/** The web search service in force: the admin's (admin page), else the environment's; undefined when none. */
export async function webSearchBackend(db: Db, fromEnv: WebSearchBackend | undefined): Promise<WebSearchBackend | undefined> {
  return (await getSetting(db, "webSearch")) ?? fromEnv;
}
