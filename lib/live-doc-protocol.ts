import * as v from "valibot";

// The live document socket: one per open file, between an editor and the file's shared Yjs
// document on the server (server/live-docs). Binary frames, each starting with a varUint message
// type: Yjs sync and awareness as y-websocket frames them (y-protocols), plus the document's state
// from the server (JSON: dirty, saving, ...) and a save request from an editor.

export const LIVE_DOC_WS_PATH = "/api/live/ws";

/** Text files up to this size are shared live; larger ones open as before (a buffer per browser). */
export const LIVE_DOC_MAX_BYTES = 1024 * 1024;

/** Big enough for a whole document's first sync. */
export const MAX_LIVE_FRAME_BYTES = 8 * LIVE_DOC_MAX_BYTES;

export const LiveMessage = { sync: 0, awareness: 1, state: 2, save: 3 } as const;

/** Close codes the editor reacts to. */
export const LiveDocCloseCode = {
  /** The file is not shared live (binary, too large, not valid UTF-8, not a regular file): open it the old way. */
  notLive: 4000,
  /** The document was closed on the server (its instance gave up the project, a restart): reconnect. */
  reconnect: 4001,
  /** The client sent something it may not (an edit over a read-only connection, a malformed frame). */
  refused: 4400,
  /** The person's access to the project ended; do not reconnect. */
  accessEnded: 4403,
} as const;

/**
 * What the server tells every editor of a document. One state for everyone: the dirty mark is
 * shared. A valibot schema: the client reads it as a reopened tab's text takes typing, and zod's
 * code and the building of its schemas held a reload's main thread ~40 ms then
 * (components/editor/text-placeholder.tsx).
 */
export const liveDocStateSchema = v.object({
  /** The document's incarnation: a different one after a reconnect means the server started it afresh. */
  epoch: v.string(),
  /** This connection may only watch (a viewer, or a file that is read-only). */
  readOnly: v.boolean(),
  /** Who this connection is, as others see it (awareness names and colours are set by the server). */
  you: v.object({ name: v.string(), color: v.string() }),
  dirty: v.boolean(),
  saving: v.boolean(),
  /** The version on disk the document was last synced with; null while the file is deleted on disk. */
  version: v.nullable(v.string()),
  /** The last save failed: why. */
  error: v.optional(v.string()),
  /** A change on disk overlapped unsaved live edits: both versions wait between markers. */
  conflicts: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type LiveDocState = v.InferOutput<typeof liveDocStateSchema>;

/** What a person shows others in a document (Yjs awareness): their name and colour, and their selection. */
export type LivePeer = {
  user: { name: string; color: string };
  /** Anchor and head as Yjs relative positions (JSON), absent while the person's editor is elsewhere. */
  selection?: { anchor: unknown; head: unknown };
  /** The file on screen in the person's editor (follow mode opens it). */
  looking?: string;
  /** Set by the server only: the agent's cursor where it just wrote (it fades after a few seconds). */
  agent?: true;
};

export function liveDocSocketUrl(
  location: { protocol: string; host: string },
  projectId: string,
  path: string,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${LIVE_DOC_WS_PATH}?projectId=${encodeURIComponent(projectId)}&path=${encodeURIComponent(path)}`;
}

/** The socket of a live document opened through a share link: read-only, the link's session's files only. */
export function linkedLiveDocSocketUrl(
  location: { protocol: string; host: string },
  link: { token: string; sessionId: string },
  path: string,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ share: link.token, sessionId: link.sessionId, path });
  return `${scheme}//${location.host}${LIVE_DOC_WS_PATH}?${query}`;
}

const COLORS = ["#e5484d", "#3e63dd", "#30a46c", "#f76b15", "#8e4ec6", "#0090ff", "#d6409f", "#ad7f58"];

/** A person's colour in documents, the same on every instance and in every browser. */
export function colorOf(key: string): string {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return COLORS[Math.abs(hash) % COLORS.length];
}
