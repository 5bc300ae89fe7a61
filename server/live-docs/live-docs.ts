import { watchWorkspace, WorkspaceError, type Workspace } from "@/server/workspace";
import { LIVE_DOC_MAX_BYTES } from "@/lib/live-doc-protocol";
import { LiveDoc, ownFile, type AgentAuthor } from "./live-doc";

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
  dispose(): void;
}

type Entry = {
  projectId: string;
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
    return new LiveDoc(workspace, path, { content: read.content, version: read.version }, () => autosaveOf(projectId));
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

  function drop(key: string, entry: Entry) {
    if (entries.get(key) !== entry) return;
    clearTimeout(entry.idleTimer);
    entries.delete(key);
    void entry.doc.then((doc) => doc.destroy()).catch(() => undefined);
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
        entry = { projectId, doc: seed(projectId, workspace, path), editors: 0 };
        entries.set(key, entry);
        const opening = entry;
        opening.doc.catch(() => drop(key, opening));
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
          if (!doc.unsaved()) return drop(key, held);
          held.idleTimer = setTimeout(() => drop(key, held), keepUnsavedMs).unref();
        },
      };
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
      for (const [key, entry] of [...entries]) if (entry.projectId === projectId) drop(key, entry);
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

    dispose() {
      for (const [key, entry] of [...entries]) drop(key, entry);
    },
  };
}
