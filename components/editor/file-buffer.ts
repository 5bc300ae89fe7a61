import type { ReadResult } from "@/lib/fs-schemas";
import type { LiveDocConnection } from "@/lib/live-doc-connection";

// One open file's buffer as the editor shows it, what it is read and written through, and what
// the buffers need from Monaco (file-buffers.ts keeps them).

export type Conflict = { kind: "changed"; disk: { content: string; version: string } } | { kind: "deleted" };

export type FileBuffer = {
  path: string;
  status: "loading" | "ready" | "error";
  kind: "text" | "binary";
  /** Content last read from or written to disk. */
  diskContent: string;
  version: string | null;
  size: number;
  readOnly: boolean;
  notice?: string;
  dirty: boolean;
  saving: boolean;
  error?: string;
  conflict: Conflict | null;
  comparing: boolean;
  /** After a merge: how many overlapping changes wait between markers in the buffer (until saved). */
  mergeConflicts?: number;
  /** A live document: shared with everyone who has it open, its state kept by the server. */
  live: boolean;
  /** The other people who have this live document open, and the file each has on screen. */
  peers: { name: string; color: string; looking?: string }[];
  /** Why this file is not shared live ("over 1 MB"), when it was offered and is not: each browser edits its own copy. */
  notLive?: string;
  /** While loading: the file's text from a plain read, shown until the buffer has its own (text-placeholder.tsx). */
  preview?: string;
};

export type FileApi = {
  read(path: string): Promise<ReadResult>;
  write(path: string, content: string, expectedVersion: string | null): Promise<{ version: string }>;
  /**
   * Opens the live document of `path` (absent in a session's own tree, which is not live). A
   * promise, so that Yjs loads in the browser only (import() in the factory): the server's own
   * live documents import it already, and a second copy in the page's server bundle warns.
   */
  live?: (path: string) => Promise<LiveDocConnection>;
  /**
   * The file's text as a plain read has it (null when it is binary, too large or unreadable),
   * asked beside the live document, which takes a socket's handshake longer: shown meanwhile.
   */
  preview?: (path: string) => Promise<string | null>;
};

/** What the buffers need from Monaco; the editor registers it once loaded. */
export type EditorBridge = {
  /** The buffer of `path` and its alternative version id, or null when it has no model yet. */
  snapshot(path: string): { content: string; altVersion: number } | null;
  /** Replaces the buffer as one undoable edit; returns the new alternative version id. */
  replace(path: string, content: string): number | null;
  /** Moves the buffer to a model under the new path; returns that model's alternative version id. */
  rename(from: string, to: string): number | null;
  dispose(path: string): void;
  /** Drops every buffer (the IDE page is going away). */
  disposeAll(): void;
};

export const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** Files of dependencies open read-only: they are not the project's to change. */
export const isDependency = (path: string) => path.startsWith("node_modules/") || path.includes("/node_modules/");
