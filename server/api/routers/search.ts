import { TRPCError } from "@trpc/server";
import { findQuerySchema, previewReplaceInputSchema, replaceInputSchema } from "@/lib/search-schemas";
import { router, workspaceMutationProcedure, workspaceProcedure } from "@/server/api/trpc";
import { findInFiles } from "@/server/services/find-in-files";
import { InvalidPatternError } from "@/lib/search-replace";
import { previewReplace, replaceInFiles } from "@/server/services/replace-in-files";
import { isWorkspaceError } from "@/server/workspace";

async function replaceCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidPatternError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
    if (isWorkspaceError(error))
      throw new TRPCError({ code: error.code === "NOT_FOUND" ? "NOT_FOUND" : "BAD_REQUEST", message: error.message });
    throw error;
  }
}

/** The Search panel: find in files (streamed over the WebSocket), replace with a preview. */
export const searchRouter = router({
  // Unsubscribing (a new search, Cancel, closing the panel) ends the generator, which kills rg.
  find: workspaceProcedure
    .input(findQuerySchema)
    .subscription(({ ctx, input, signal }) =>
      findInFiles(ctx.workspace.root, input, { signal: signal ?? new AbortController().signal }),
    ),

  previewReplace: workspaceProcedure
    .input(previewReplaceInputSchema)
    .query(({ ctx, input }) => replaceCall(() => previewReplace(ctx.workspace, input))),

  replace: workspaceMutationProcedure
    .input(replaceInputSchema)
    .mutation(({ ctx, input }) => replaceCall(() => replaceInFiles(ctx.workspace, input))),
});
