/**
 * How the agent's writes reach people who have the file open in a live editor (server/live-docs):
 * a port the composition root (server/compose-services.ts) fills in, so that tools and the agent know
 * nothing of sockets or documents. The write itself has gone to disk already, as for any file; this
 * only tells the open document to take it in now (not after the watcher's delay) and to show the
 * agent's cursor where it changed.
 */
export interface LiveEditNotifier {
  wrote(edit: {
    projectId: string;
    /** Root-relative, links followed (`ResolvedPath.path`), as the live documents file it. */
    path: string;
    /** The version the agent wrote (`versionOf` its bytes). */
    version: string;
    /** Who wrote it, as people see the cursor: the agent session. */
    by: { sessionId: string; name: string };
  }): void;
}

/** The notifier bound to one session's turn: what a tool calls after it wrote a file (ToolContext.liveEdits). */
export interface SessionLiveEdits {
  wrote(path: string, version: string): void;
}
