import { treeKey } from "@/lib/trees";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { workspaceMutationProcedure, workspaceProcedure, router } from "@/server/api/trpc";
import { LanguageUnavailable } from "@/server/language/project-language";
import { RenameConflict, renameSymbol } from "@/server/language/rename";
import { isWorkspaceError } from "@/server/workspace";
import { workspacePathSchema } from "@/lib/fs-schemas";

// The editor's language features that change files go through here (the normal write path), not
// through the language socket; the socket serves everything that only reads.

const renameInput = z.object({
  path: workspacePathSchema,
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  newName: z.string().min(1).max(200).regex(/^\S+$/, "A name has no spaces."),
});

export const languageRouter = router({
  /** Servers of the tree and their state, for the status bar. */
  status: workspaceProcedure.query(({ ctx }) => ctx.services.language.status(treeKey(ctx.tree))),

  /**
   * The servers configuration adds to the tree, for the editor: which files each serves (globs) and
   * the language id it opens them with. Commands stay on the server.
   */
  configured: workspaceProcedure.query(async ({ ctx }) => {
    const registry = await ctx.services.language.registry(treeKey(ctx.tree), ctx.workspace);
    return registry.specs.flatMap((spec) =>
      spec.files ? [{ id: spec.id, files: [...spec.files], languageId: spec.languages[0]! }] : [],
    );
  }),

  /** Renames the symbol at a position in every file, as one transaction; open editors reload from the change stream. */
  rename: workspaceMutationProcedure.input(renameInput).mutation(async ({ ctx, input }) => {
    const language = ctx.services.language.forProject(treeKey(ctx.tree), ctx.workspace);
    try {
      const files = await renameSymbol(
        ctx.workspace,
        language,
        { path: input.path, line: input.line, column: input.column },
        input.newName,
      );
      return { files: files.map((f) => ({ path: f.path, version: f.version })) };
    } catch (error) {
      if (error instanceof RenameConflict) throw new TRPCError({ code: "CONFLICT", message: error.message });
      if (error instanceof LanguageUnavailable) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
      if (isWorkspaceError(error))
        throw new TRPCError({ code: error.code === "NOT_FOUND" ? "NOT_FOUND" : "BAD_REQUEST", message: error.message });
      throw new TRPCError({
        code: "PRECONDITION_FAILED",
        message: `The language server could not rename: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }),
});
