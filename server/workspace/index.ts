export { Workspace, versionOf, READ_ONLY_BYTES, MAX_FILE_BYTES, type WriteOptions, type FileStat } from "./workspace";
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode } from "./errors";
export { isInside, type ResolvedPath } from "./paths";
export type { TextFormat } from "./text-codec";
export { watchWorkspace, type WatchOptions } from "./watch";
export { openWorkspace } from "./open-workspace";

export { CheckpointStore, openCheckpointStore } from "./checkpoints";
export { CheckpointError } from "./checkpoint-errors";
export { receiveFile, openFileStream, freeName, numberedName, TooLargeError, type OnExists } from "./receive";
export { ChangeQueue } from "./change-queue";
