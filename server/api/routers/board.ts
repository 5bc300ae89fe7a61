import { projectProcedure, router } from "@/server/api/trpc";

// The live board of a project's sessions (server/services/session-board.ts): whoever may read the
// project sees every top-level session on it.

export const boardRouter = router({
  list: projectProcedure.query(({ ctx }) => ctx.services.board.rows(ctx.project.id)),

  /** The board's rows, then each session's row again whenever it changes (or `removed`). */
  watch: projectProcedure.subscription(({ ctx, signal }) => ctx.services.board.stream(ctx.project.id, signal)),
});
