// A change in a workspace, as the watcher reports it and the IDE follows it (fs.changes; its
// schema is fileChangeSchema in lib/fs-schemas.ts). Here without zod: the IDE's first screen
// follows changes, and loads no zod (docs/ide.md, "Opening a file").

export type FileChange = {
  type: "add" | "change" | "unlink" | "addDir" | "unlinkDir";
  path: string;
  version?: string;
};

/**
 * The change of the workspace root itself: changes may have been missed, read everything again (a
 * cluster's bus lost its connection, or fs.changes could not replay from the client's cursor).
 */
export const REREAD_ALL: FileChange = { type: "addDir", path: "" };
