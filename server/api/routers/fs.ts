import { tracked, type TrackedEnvelope, TRPCError } from "@trpc/server";
import {
  changesInputSchema,
  type FileChange,
  filesInputSchema,
  createInputSchema,
  deleteInputSchema,
  mkdirInputSchema,
  readInputSchema,
  renameInputSchema,
  treeInputSchema,
  writeInputSchema,
} from "@/lib/fs-schemas";
import { projectProcedure, router, workspaceMutationProcedure, workspaceProcedure } from "@/server/api/trpc";
import { presenceStream } from "@/server/api/live";
import { openFilesRoom } from "@/server/bus/presence";
import { isWorkspaceError, watchWorkspaceFrom, type TrackedChange, type WorkspaceErrorCode } from "@/server/workspace";
import { folderEntries, previewText } from "@/server/services/first-screen";
import { listWorkspaceFiles } from "@/server/workspace/file-list";

const TRPC_CODES: Record<WorkspaceErrorCode, TRPCError["code"]> = {
  OUTSIDE_WORKSPACE: "BAD_REQUEST",
  INVALID_PATH: "BAD_REQUEST",
  IS_DIRECTORY: "BAD_REQUEST",
  NOT_A_DIRECTORY: "BAD_REQUEST",
  NOT_A_FILE: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  EXISTS: "CONFLICT",
  CONFLICT: "CONFLICT",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  DISK_FULL: "PAYLOAD_TOO_LARGE",
  IO_ERROR: "INTERNAL_SERVER_ERROR",
};

/**
 * Workspace refusals keep their message; a CONFLICT's message ends with the current version
 * (read it with `currentVersionFromConflict` from lib/fs-schemas), since the error formatter
 * does not send `cause` to the client.
 */
async function workspaceCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isWorkspaceError(error)) throw error;
    throw new TRPCError({ code: TRPC_CODES[error.code], message: error.message, cause: error });
  }
}

/** tRPC's tracked events, ending the source as soon as the subscription does. */
function asTracked(source: AsyncIterableIterator<TrackedChange>): AsyncIterableIterator<TrackedEnvelope<FileChange>> {
  const events: AsyncIterableIterator<TrackedEnvelope<FileChange>> = {
    async next() {
      const next = await source.next();
      return next.done ? next : { done: false, value: tracked(next.value.id, next.value.change) };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => events,
  };
  return events;
}

export const fsRouter = router({
  /** Who has which of the project's files open live (the explorer's initials), now and on every change. */
  presence: projectProcedure.subscription(({ ctx, signal }) =>
    presenceStream(ctx.services.presence, openFilesRoom(ctx.project.id), null, signal),
  ),

  /** One folder's entries, and the cursor of the change stream taken before they were read (fs.changes starts there). */
  tree: workspaceProcedure
    .input(treeInputSchema)
    .query(({ ctx, input }) => workspaceCall(() => folderEntries(ctx.workspace, input.path, input.showIgnored))),

  /** Every file that is not ignored, for quick open (Ctrl/Cmd+P). */
  files: workspaceProcedure
    .input(filesInputSchema)
    .query(({ ctx }) => listWorkspaceFiles(ctx.workspace.root, { signal: AbortSignal.timeout(10_000) })),

  read: workspaceProcedure
    .input(readInputSchema)
    .query(({ ctx, input }) => workspaceCall(() => ctx.workspace.read(input.path))),

  /**
   * A file's text for the view shown while the editor loads (components/editor/text-placeholder.tsx):
   * the text its editor will show, so nothing jumps when the editor comes (previewText; in a
   * cluster this procedure goes to the project's holder, where its live documents are).
   */
  preview: workspaceProcedure
    .input(readInputSchema)
    .query(({ ctx, input }) =>
      workspaceCall(() => previewText(ctx.services.liveDocs, ctx.project.id, ctx.workspace, input.path)),
    ),

  write: workspaceMutationProcedure.input(writeInputSchema).mutation(({ ctx, input }) =>
    workspaceCall(() =>
      ctx.workspace.write(input.path, input.content, {
        createParents: input.createParents,
        ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
      }),
    ),
  ),

  create: workspaceMutationProcedure
    .input(createInputSchema)
    .mutation(({ ctx, input }) =>
      workspaceCall(() => ctx.workspace.create(input.path, input.content, { createParents: input.createParents })),
    ),

  mkdir: workspaceMutationProcedure.input(mkdirInputSchema).mutation(({ ctx, input }) =>
    workspaceCall(async () => {
      await ctx.workspace.mkdir(input.path);
      return { path: input.path };
    }),
  ),

  rename: workspaceMutationProcedure.input(renameInputSchema).mutation(({ ctx, input }) =>
    workspaceCall(async () => {
      await ctx.workspace.rename(input.from, input.to, { createParents: input.createParents });
      return { from: input.from, to: input.to };
    }),
  ),

  delete: workspaceMutationProcedure.input(deleteInputSchema).mutation(({ ctx, input }) =>
    workspaceCall(async () => {
      await ctx.workspace.delete(input.path);
      return { path: input.path };
    }),
  ),

  // Changes after `lastEventId` (the cursor of the client's first listing, then the id of the last
  // change it got, which tRPC's client sends again when it reconnects), then live, as tracked events.
  // Returned as an iterator rather than wrapped in a generator, so that the subscription ending
  // (signal or return()) releases the watcher at once even when no change is pending. In a cluster
  // the project's holder watches and its changes come through the file-change bus.
  changes: workspaceProcedure.input(changesInputSchema).subscription(({ ctx, input, signal }) => {
    // The cluster's file-change bus carries main trees; a session's worktree is watched where it is asked for.
    const followFiles = ctx.tree.treeId ? null : ctx.services.workspaces?.followFiles;
    return asTracked(
      followFiles
        ? followFiles(ctx.project.id, signal)
        : watchWorkspaceFrom(ctx.workspace.root, input.lastEventId, { signal }),
    );
  }),
});
