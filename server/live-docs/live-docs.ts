import { watchWorkspace, WorkspaceError, type Workspace } from "@/server/workspace";
import { LIVE_DOC_MAX_BYTES } from "@/lib/live-doc-protocol";
import { LiveDoc, ownFile } from "./live-doc";
import type { AgentAuthor } from "./agent-cursors";
import type { UnsavedJournal } from "./unsaved-journal";

// The files open live in this instance's projects (the instance holding each project's workspace;
// in a cluster the live socket is forwarded there like the terminal's). A document lives while
// someone has it open, and a while longer when it holds unsaved edits, so a dropped connection
// loses nothing. Each project with open documents has one watcher that merges outside changes in.

/** A file that is not shared live, and why: the editor opens it the old way. */
export class NotLiveError extends Error {}

/** How long a document with unsaved edits outlives its last editor (a reload, a dropped connection). */
const KEEP_UNSAVED_MS = 30 * 60_000;

/**
 * Where a document is filed: by project and the server-resolved path. The one place that says
 * what makes two editors share a document (a working tree of the project would be a third part).
 */
export const docKey = (projectId: string, path: string) => `${projectId}\u0000${path}`;

export interface LiveDocs {
  /**
   * The document of `input` in the project, seeded from disk by its first opener; NotLiveError
   * when the file is not text under the live size limit. `leave` must be called when the opener
   * is done with it.
   */
  open(
    projectId: string,
    workspace: Workspace,
    input: string,
    /** Opens only a file whose real path it admits (a view link: the files its session touched). */
    only?: { admits: (realPath: string) => boolean; refusal: string },
  ): Promise<{ doc: LiveDoc; leave: () => void }>;
  /**
   * The text people see in the document of `input`, unsaved edits and all, when it is open here
   * for this very tree (`workspace`'s root, so a session's worktree never gets the main tree's);
   * null when it is not, and the caller reads the disk. Reads nothing from the disk itself.
   */
  textOf(projectId: string, workspace: Workspace, input: string): Promise<string | null>;
  /**
   * The agent wrote `path` (server-resolved) at `version` in the project's main tree: if it is
   * open, the document takes the change in now, with the agent's cursor; otherwise nothing happens.
   */
  agentWrote(edit: { projectId: string; path: string; version: string; by: AgentAuthor }): void;
  /** The project's autosave setting changed here: its documents take it at their next edit. */
  autosaveChanged(projectId: string): void;
  /** Every open document of a project: their sockets are told to reconnect (the project moved away). */
  closeProject(projectId: string): void;
  /** Subscribes to a project's document closings (the sockets of `closeProject`). */
  onClosed(projectId: string, listener: () => void): () => void;
  /** How many documents are open (benchmarks and tests). */
  size(): number;
  /** Closes every document, their unsaved state kept in the journal for the next start or holder. */
  dispose(): Promise<void>;
}

type Entry = {
  projectId: string;
  /** The root of the tree it was opened in (the main tree's). */
  root: string;
  doc: Promise<LiveDoc>;
  editors: number;
  idleTimer?: NodeJS.Timeout;
};

/** How long a project's autosave setting is trusted before it is read again (another instance may change it). */
const AUTOSAVE_SETTING_MS = 5_000;

export function createLiveDocs(
  options: {
    keepUnsavedMs?: number;
    /** The project's autosave delay after the last edit, null when off (the project's setting). */
    autosaveOf?: (projectId: string) => Promise<number | null>;
    /** Where unsaved typing is kept a few seconds behind, for the next holder (unsaved-journal.ts). */
    journal?: UnsavedJournal;
  } = {},
): LiveDocs {
  const keepUnsavedMs = options.keepUnsavedMs ?? KEEP_UNSAVED_MS;
  const autosaveRead = new Map<string, { at: number; ms: Promise<number | null> }>();
  const autosaveOf = (projectId: string) => {
    const known = autosaveRead.get(projectId);
    if (known && Date.now() - known.at < AUTOSAVE_SETTING_MS) return known.ms;
    const ms = options.autosaveOf ? options.autosaveOf(projectId) : Promise.resolve(null);
    autosaveRead.set(projectId, { at: Date.now(), ms });
    return ms;
  };
  const entries = new Map<string, Entry>();
  /** Documents being closed, by key, until their journal is written or removed. */
  const closing = new Map<string, Promise<unknown>>();
  const watchers = new Map<string, AbortController>();
  const closedListeners = new Map<string, Set<() => void>>();

  async function seed(projectId: string, workspace: Workspace, path: string): Promise<LiveDoc> {
    const read = await workspace.read(path, ownFile(path));
    // The reasons are shown on the tab after "Not shared live: ".
    if (read.kind !== "text") throw new NotLiveError("a binary file");
    if (read.readOnly) throw new NotLiveError(read.notice ?? "read-only here");
    if (read.size > LIVE_DOC_MAX_BYTES) throw new NotLiveError(`over ${LIVE_DOC_MAX_BYTES / 1024 / 1024} MB`);
    // Editors keep one line ending per file: with mixed ones their offsets and the document's would drift apart.
    if (/\r(?!\n)/.test(read.content) || (read.content.includes("\r\n") && /(^|[^\r])\n/.test(read.content)))
      throw new NotLiveError("mixed line endings");
    const { journal } = options;
    // A document of this file being closed here writes its journal first: that is where this one starts.
    await closing.get(docKey(projectId, path));
    const kept = (await journal?.read(projectId, path).catch(() => null)) ?? undefined;
    const doc = new LiveDoc(workspace, path, read, {
      autosaveMs: () => autosaveOf(projectId),
      ...(journal
        ? {
            journal: {
              write: (entry) => journal.write(projectId, path, entry),
              remove: () => journal.remove(projectId, path),
            },
          }
        : {}),
      ...(kept ? { kept } : {}),
    });
    // Kept from before: what changed on disk since is merged in as any change on disk is.
    if (kept && kept.version !== read.version) await doc.diskChanged(read.version);
    return doc;
  }

  function watch(projectId: string, workspace: Workspace) {
    if (watchers.has(projectId)) return;
    const stop = new AbortController();
    watchers.set(projectId, stop);
    void (async () => {
      for await (const change of watchWorkspace(workspace.root, { signal: stop.signal })) {
        if (change.type === "unlinkDir") {
          for (const doc of await docsOf(projectId))
            if (doc.path.startsWith(`${change.path}/`)) void doc.diskDeleted().catch(() => undefined);
          continue;
        }
        const entry = entries.get(docKey(projectId, change.path));
        if (!entry) continue;
        const doc = await entry.doc.catch(() => null);
        if (!doc) continue;
        const done = change.type === "unlink" ? doc.diskDeleted() : doc.diskChanged(change.version);
        void done.catch((error: unknown) => console.error(`live document ${change.path}:`, error));
      }
    })().catch((error: unknown) => console.error("watching live documents:", error));
  }

  async function docsOf(projectId: string): Promise<LiveDoc[]> {
    const docs = [...entries.values()].filter((entry) => entry.projectId === projectId).map((entry) => entry.doc);
    return (await Promise.all(docs.map((doc) => doc.catch(() => null)))).filter((doc) => doc !== null);
  }

  /**
   * `idle`: nobody came back for it (its unsaved typing, if any, is given up); `close`: the project
   * moves to another instance or this one stops, and its unsaved state is kept for the next holder.
   */
  function drop(key: string, entry: Entry, how: "idle" | "close") {
    if (entries.get(key) !== entry) return;
    clearTimeout(entry.idleTimer);
    entries.delete(key);
    const closed = entry.doc
      .then((doc) => (how === "idle" ? doc.abandon() : doc.flushJournal().then(() => doc.destroy())))
      .catch(() => undefined);
    closing.set(key, closed);
    void closed.then(() => closing.get(key) === closed && closing.delete(key));
    if (![...entries.values()].some((other) => other.projectId === entry.projectId)) {
      watchers.get(entry.projectId)?.abort();
      watchers.delete(entry.projectId);
      autosaveRead.delete(entry.projectId);
    }
  }

  return {
    async open(projectId, workspace, input, only) {
      const { path } = await workspace.resolve(input);
      if (only && !only.admits(path)) throw new WorkspaceError("NOT_FOUND", only.refusal);
      const key = docKey(projectId, path);
      let entry = entries.get(key);
      if (!entry) {
        entry = { projectId, root: workspace.root, doc: seed(projectId, workspace, path), editors: 0 };
        entries.set(key, entry);
        const opening = entry;
        opening.doc.catch(() => drop(key, opening, "idle"));
        watch(projectId, workspace);
      }
      clearTimeout(entry.idleTimer);
      entry.editors += 1;
      const doc = await entry.doc;
      const held = entry;
      let left = false;
      return {
        doc,
        leave() {
          if (left) return;
          left = true;
          held.editors -= 1;
          if (held.editors > 0) return;
          if (!doc.unsaved()) return drop(key, held, "idle");
          held.idleTimer = setTimeout(() => drop(key, held, "idle"), keepUnsavedMs).unref();
        },
      };
    },

    async textOf(projectId, workspace, input) {
      const { path } = await workspace.resolve(input);
      const entry = entries.get(docKey(projectId, path));
      if (!entry || entry.root !== workspace.root) return null;
      // One being seeded is awaited: its disk read is the one a reader would make.
      const doc = await entry.doc.catch(() => null);
      return doc && !doc.doc.isDestroyed ? doc.text.toString() : null;
    },

    agentWrote({ projectId, path, version, by }) {
      const entry = entries.get(docKey(projectId, path));
      if (!entry) return;
      void entry.doc
        .then((doc) => doc.agentWrote(version, by))
        .catch((error: unknown) => console.error(`live document ${path}:`, error));
    },

    autosaveChanged(projectId) {
      autosaveRead.delete(projectId);
    },

    closeProject(projectId) {
      for (const [key, entry] of [...entries]) if (entry.projectId === projectId) drop(key, entry, "close");
      for (const listener of [...(closedListeners.get(projectId) ?? [])]) listener();
    },

    onClosed(projectId, listener) {
      let set = closedListeners.get(projectId);
      if (!set) closedListeners.set(projectId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && closedListeners.get(projectId) === set) closedListeners.delete(projectId);
      };
    },

    size: () => entries.size,

    async dispose() {
      for (const [key, entry] of [...entries]) drop(key, entry, "close");
      // Unsaved typing reaches the journal before the process goes.
      await Promise.all(closing.values());
    },
  };
}
