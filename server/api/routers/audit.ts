import { z } from "zod";
import { AUDIT_RETENTION_MAX_DAYS, auditSearchInput } from "@/lib/audit";
import { adminProcedure, router } from "@/server/api/trpc";
import { createAuditLog } from "@/server/services/audit-log";

// The audit log, for the instance's admins only: search, export, retention.
export const auditRouter = router({
  search: adminProcedure
    // `cursor`: the id of the previous page's last row (pages go from newest to oldest).
    .input(
      auditSearchInput.extend({
        cursor: z
          .string()
          .regex(/^\d{1,19}$/)
          .nullish(),
      }),
    )
    .query(({ ctx, input: { cursor, ...search } }) =>
      createAuditLog(ctx.services.db).search(search, cursor ?? undefined),
    ),

  export: adminProcedure
    .input(auditSearchInput.extend({ format: z.enum(["csv", "jsonl"]) }))
    .query(({ ctx, input: { format, ...search } }) => createAuditLog(ctx.services.db).export(search, format)),

  retention: adminProcedure.query(async ({ ctx }) => ({
    days: await createAuditLog(ctx.services.db).retentionDays(),
  })),

  setRetention: adminProcedure
    .input(z.object({ days: z.number().int().min(1).max(AUDIT_RETENTION_MAX_DAYS) }))
    .mutation(async ({ ctx, input }) => ({ days: await createAuditLog(ctx.services.db).setRetentionDays(input.days) })),
});
