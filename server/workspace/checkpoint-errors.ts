export type CheckpointErrorCode =
  /** The `git` binary is missing or too old. */
  | "GIT_UNAVAILABLE"
  /** The store directory is unusable (e.g. inside the workspace). */
  | "INVALID_STORE"
  /** No checkpoint with that id in this store. */
  | "UNKNOWN_CHECKPOINT"
  /** Hunks were asked for a file that is not text on one side. */
  | "NOT_TEXT"
  /** No hunk with that index (the file changed since the hunks were listed). */
  | "UNKNOWN_HUNK"
  /** The file changed since its hunks were listed. */
  | "STALE"
  /** A file's version in a checkpoint is larger than the store reads back into memory (MAX_OBJECT_BYTES). */
  | "TOO_LARGE"
  /** git itself failed. */
  | "GIT_FAILED";

/** A checkpoint-store refusal or failure, with a message that says what to do next. */
export class CheckpointError extends Error {
  readonly code: CheckpointErrorCode;

  constructor(code: CheckpointErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "CheckpointError";
    this.code = code;
  }
}

export function isCheckpointError(error: unknown): error is CheckpointError {
  return error instanceof CheckpointError;
}
