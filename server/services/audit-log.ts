import { AUDIT_PAGE, type AuditEventView, type AuditSearch } from "@/lib/audit";
import { toCsv } from "@/lib/csv";
import type { Db } from "@/server/db/client";
import { purgeAuditBefore, searchAudit } from "@/server/db/repositories/audit-events";
import { getSetting, setSetting } from "@/server/db/repositories/settings";

// The audit log as admins use it: search, export, retention and its purge. Rows are written where
// each action happens (the repositories and services that make the change, through recordAudit),
// never by the API's routers, so every way to the change is recorded.

/** An export reads pages of 1,000 rows up to this many. */
export const EXPORT_MAX_ROWS = 100_000;
const DAY_MS = 86_400_000;
/** How often each instance runs the retention purge (each run deletes only what is past the cut-off). */
export const PURGE_EVERY_MS = 6 * 60 * 60 * 1000;

export type AuditExport = { filename: string; contentType: string; content: string; rows: number; truncated: boolean };

const COLUMNS = [
  "id",
  "at",
  "action",
  "actorId",
  "actorEmail",
  "via",
  "tokenId",
  "ip",
  "forwardedFor",
  "userAgent",
  "teamId",
  "projectId",
  "target",
  "detail",
] as const;

export function createAuditLog(db: Db) {
  async function* pages(search: AuditSearch): AsyncGenerator<AuditEventView[]> {
    let before: string | undefined;
    for (let read = 0; read < EXPORT_MAX_ROWS; ) {
      const page = await searchAudit(db, search, { limit: Math.min(1000, EXPORT_MAX_ROWS - read), before });
      if (!page.length) return;
      yield page;
      read += page.length;
      before = page.at(-1)!.id;
    }
  }

  async function purge(now = new Date()): Promise<number> {
    const days = await getSetting(db, "auditRetentionDays");
    return purgeAuditBefore(db, new Date(now.getTime() - days * DAY_MS));
  }

  return {
    search: (search: AuditSearch, before?: string) => searchAudit(db, search, { limit: AUDIT_PAGE, before }),

    async export(search: AuditSearch, format: "csv" | "jsonl"): Promise<AuditExport> {
      const rows: AuditEventView[] = [];
      for await (const page of pages(search)) rows.push(...page);
      const stamp = new Date().toISOString().slice(0, 10);
      const content =
        format === "jsonl"
          ? rows.map((row) => JSON.stringify(row)).join("\n") + (rows.length ? "\n" : "")
          : toCsv(
              [...COLUMNS],
              rows.map((row) => COLUMNS.map((c) => (c === "detail" ? JSON.stringify(row.detail) : row[c]))),
            );
      return {
        filename: `tandem-audit-${stamp}.${format}`,
        contentType: format === "csv" ? "text/csv" : "application/x-ndjson",
        content,
        rows: rows.length,
        truncated: rows.length >= EXPORT_MAX_ROWS,
      };
    },

    retentionDays: () => getSetting(db, "auditRetentionDays"),
    async setRetentionDays(days: number) {
      await setSetting(db, "auditRetentionDays", days);
      return days;
    },

    purge,

    /** Purges now and every PURGE_EVERY_MS until the returned stop is called. */
    startPurging(everyMs = PURGE_EVERY_MS): () => void {
      const run = () => purge().catch((error: unknown) => console.error("audit: the retention purge failed:", error));
      void run();
      const timer = setInterval(run, everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
