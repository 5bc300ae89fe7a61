export { Workspace, type FileStat } from "./workspace";
export { versionOf, READ_ONLY_BYTES, MAX_FILE_BYTES } from "./file-limits";
export type { WriteOptions } from "./save-text";
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode } from "./errors";
export { isInside, type ResolvedPath } from "./paths";
export type { TextFormat } from "./text-codec";
export { changeCursor, watchWorkspace, watchWorkspaceFrom, type TrackedChange, type WatchOptions } from "./watch";
export { openWorkspace } from "./open-workspace";

export { CheckpointStore, openCheckpointStore } from "./checkpoints";
export { CheckpointError } from "./checkpoint-errors";
export { receiveFile, openFileStream, freeName, numberedName, TooLargeError, type OnExists } from "./receive";
export { ChangeQueue } from "./change-queue";
