import { TRPCError } from "@trpc/server";
import { isCheckpointError, type CheckpointErrorCode } from "@/server/workspace/checkpoint-errors";
import { isWorkspaceError, type WorkspaceErrorCode } from "@/server/workspace";
import { ReviewError, sessionReview } from "@/server/services/session-review";

// What the review and checkpoint routers share: the session's review, the person acting, and how
// refusals are reported (each with the message that says what to do).

export const reviewOf = (ctx: {
  services: Parameters<typeof sessionReview>[0];
  session: { id: string; projectId: string; treeId: string | null };
}) => sessionReview(ctx.services, ctx.session);
export const person = (user: { id: string; name: string }) => ({ id: user.id, name: user.name });

const CHECKPOINT_CODES: Record<CheckpointErrorCode, TRPCError["code"]> = {
  UNKNOWN_CHECKPOINT: "NOT_FOUND",
  STALE: "CONFLICT",
  NOT_TEXT: "BAD_REQUEST",
  UNKNOWN_HUNK: "BAD_REQUEST",
  GIT_UNAVAILABLE: "PRECONDITION_FAILED",
  INVALID_STORE: "INTERNAL_SERVER_ERROR",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  GIT_FAILED: "INTERNAL_SERVER_ERROR",
};

const WORKSPACE_CODES: Partial<Record<WorkspaceErrorCode, TRPCError["code"]>> = {
  OUTSIDE_WORKSPACE: "BAD_REQUEST",
  INVALID_PATH: "BAD_REQUEST",
  IS_DIRECTORY: "BAD_REQUEST",
  NOT_A_DIRECTORY: "BAD_REQUEST",
  NOT_A_FILE: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  DISK_FULL: "PAYLOAD_TOO_LARGE",
};

export async function reviewCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReviewError) throw new TRPCError({ code: error.code, message: error.message });
    if (isCheckpointError(error))
      throw new TRPCError({ code: CHECKPOINT_CODES[error.code], message: error.message, cause: error });
    if (isWorkspaceError(error) && WORKSPACE_CODES[error.code])
      throw new TRPCError({ code: WORKSPACE_CODES[error.code]!, message: error.message, cause: error });
    throw error;
  }
}
