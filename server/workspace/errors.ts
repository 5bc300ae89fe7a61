export type WorkspaceErrorCode =
  | "OUTSIDE_WORKSPACE"
  | "INVALID_PATH"
  | "NOT_FOUND"
  | "EXISTS"
  | "CONFLICT"
  | "IS_DIRECTORY"
  | "NOT_A_DIRECTORY"
  /** A FIFO, socket or device: never opened, since reading one can block the server. */
  | "NOT_A_FILE"
  | "TOO_LARGE"
  | "DISK_FULL"
  | "IO_ERROR";

/** A refusal or failure with a message that tells a person or a model what to do next. */
export class WorkspaceError extends Error {
  readonly code: WorkspaceErrorCode;
  /** For CONFLICT: the file's version on disk now (null when it does not exist). */
  readonly currentVersion?: string | null;

  constructor(
    code: WorkspaceErrorCode,
    message: string,
    options: { cause?: unknown; currentVersion?: string | null } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "WorkspaceError";
    this.code = code;
    if ("currentVersion" in options) this.currentVersion = options.currentVersion;
  }
}

export function isWorkspaceError(error: unknown): error is WorkspaceError {
  return error instanceof WorkspaceError;
}

export function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** Turns a Node fs error on `path` into a WorkspaceError; anything unexpected becomes IO_ERROR. */
export function fromFsError(error: unknown, path: string): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  const shown = path === "" ? "the workspace root" : `'${path}'`;
  switch (errnoCode(error)) {
    case "ENOENT":
      return new WorkspaceError("NOT_FOUND", `${shown} does not exist. List its folder to see what is there.`, {
        cause: error,
      });
    case "EEXIST":
    case "ENOTEMPTY":
      return new WorkspaceError("EXISTS", `${shown} already exists. Choose another name or delete it first.`, {
        cause: error,
      });
    case "EISDIR":
      return new WorkspaceError("IS_DIRECTORY", `${shown} is a folder, not a file. List it instead.`, { cause: error });
    case "EXDEV":
      // openat2 with RESOLVE_BENEATH (beneath.ts): the walk would have left the root.
      return new WorkspaceError(
        "OUTSIDE_WORKSPACE",
        `${shown} leads outside the workspace through a symbolic link (or an absolute one). Only files inside the workspace can be used; give a path relative to the workspace root, e.g. 'src/index.ts'.`,
        { cause: error },
      );
    case "ELOOP":
      return new WorkspaceError(
        "INVALID_PATH",
        `${shown} goes through too many symbolic links (a loop?). Use the real path of the file.`,
        { cause: error },
      );
    case "ENOTDIR":
      return new WorkspaceError("NOT_A_DIRECTORY", `A part of ${shown} is a file, not a folder.`, { cause: error });
    default:
      return new WorkspaceError(
        "IO_ERROR",
        `Could not access ${shown}: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
  }
}
