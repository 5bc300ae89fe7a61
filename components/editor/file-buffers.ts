import type { FileChange, ReadResult } from "@/lib/fs-schemas";
import { resolveConflicts, type ConflictChoice } from "@/lib/git-conflicts";
import { errorCode, errorMessage } from "@/components/ui/error-message";
import { mergeText } from "@/lib/text-merge";
import * as Y from "yjs";
import type { LiveDocConnection } from "@/lib/live-doc-connection";
import type { LiveDocState } from "@/lib/live-doc-protocol";

// The open files' contents and how they follow the disk: what was last read from or written to
// disk, whether the buffer differs from it (dirty), saving, and a conflict with the disk (the
// "changed on disk" banner). The text itself lives in Monaco models, reached through an
// EditorBridge once Monaco has loaded. Which files are open as tabs is open-tabs.ts.
// A text file under the live size limit is a live document instead (lib/live-doc-connection.ts):
// the server holds its one shared state, so dirty, saving and changes on disk come from there and
// the banner never shows for it; other files, and every file when the live socket cannot be
// reached, follow the disk as before.

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
};

export type FileApi = {
  read(path: string): Promise<ReadResult>;
  write(path: string, content: string, expectedVersion: string | null): Promise<{ version: string }>;
  /** Opens the live document of `path` (absent in a session's own tree, which is not live). */
  live?: (path: string) => LiveDocConnection;
};

/** How long a file waits for its live document before it opens the old way (a proxy without WebSockets). */
const LIVE_WAIT_MS = 5_000;

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

export class FileBuffers {
  private buffers: ReadonlyMap<string, FileBuffer> = new Map();
  private listeners = new Set<() => void>();
  private bridge: EditorBridge | null = null;
  private savedAlt = new Map<string, number>();
  private saves = new Map<string, Promise<void>>();
  private lives = new Map<string, LiveDocConnection>();
  /** The file on screen here, told to the others in every live document (follow mode). */
  private looking: string | null = null;
  /**
   * A "Merge both" not yet saved: the buffer's state before and after it, by the model's
   * alternative version ids (which undo and redo return to), so that undoing the merge also undoes
   * taking the disk's version: the conflict is back, and a save meets the newer file and asks.
   */
  private merges = new Map<
    string,
    { beforeAlt: number; mergedAlt: number; before: Partial<FileBuffer>; after: Partial<FileBuffer> }
  >();
  /** Told when a file reloaded from disk turned out deleted: its tab closes (open-tabs.ts). */
  onGone: (path: string) => void = () => {};

  constructor(private api: FileApi) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getSnapshot = () => this.buffers;

  get(path: string) {
    return this.buffers.get(path);
  }

  private set(next: ReadonlyMap<string, FileBuffer>) {
    this.buffers = next;
    for (const listener of this.listeners) listener();
  }

  private update(path: string, patch: Partial<FileBuffer>) {
    const buffer = this.buffers.get(path);
    if (!buffer) return;
    this.set(new Map(this.buffers).set(path, { ...buffer, ...patch }));
  }

  get hasBridge() {
    return this.bridge !== null;
  }

  setBridge(bridge: EditorBridge) {
    this.bridge = bridge;
  }

  dispose() {
    for (const connection of this.lives.values()) connection.destroy();
    this.lives.clear();
    this.bridge?.disposeAll();
    this.bridge = null;
    this.savedAlt.clear();
  }

  /** Monaco created the model of `path` from its disk content: that version is the clean one. */
  modelCreated(path: string, altVersion: number) {
    this.savedAlt.set(path, altVersion);
    this.update(path, { dirty: false });
  }

  modelChanged(path: string, altVersion: number) {
    if (this.lives.has(path)) return; // the server says whether a live document is dirty
    const merge = this.merges.get(path);
    if (merge && altVersion === merge.beforeAlt) this.update(path, merge.before);
    else if (merge && altVersion === merge.mergedAlt) this.update(path, merge.after);
    const dirty = altVersion !== this.savedAlt.get(path);
    if (this.get(path)?.dirty !== dirty) this.update(path, { dirty });
  }

  /** Reads `path` from disk into a new buffer. */
  async load(path: string) {
    const buffer: FileBuffer = {
      path,
      status: "loading",
      kind: "text",
      diskContent: "",
      version: null,
      size: 0,
      readOnly: false,
      dirty: false,
      saving: false,
      conflict: null,
      comparing: false,
      live: false,
      peers: [],
    };
    this.set(new Map(this.buffers).set(path, buffer));
    const notLive = this.api.live ? await this.openLive(path) : undefined;
    if (notLive === null) return;
    try {
      this.applyRead(path, await this.api.read(path));
      if (notLive) this.update(path, { notLive });
    } catch (error) {
      this.update(path, { status: "error", error: errorMessage(error) });
    }
  }

  /** The live document of `path`, when it is one (the editor binds its model to it). */
  liveConnection(path: string): LiveDocConnection | undefined {
    return this.lives.get(path);
  }

  /**
   * Opens `path` as a live document: null when it is one, else why not (then it is read the old
   * way), as the server said it ("over 1 MB") or "the live connection did not answer".
   */
  private async openLive(path: string): Promise<string | null> {
    const connection = this.api.live!(path);
    const outcome = await new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => settle("the live connection did not answer"), LIVE_WAIT_MS);
      const settle = (result: string | null) => {
        clearTimeout(timer);
        stopSynced();
        stopEnd();
        resolve(result);
      };
      const stopSynced = connection.onSynced(() => settle(null));
      const stopEnd = connection.onEnd((end) => settle(end.reason || "the server did not share it"));
    });
    if (outcome !== null || !this.buffers.has(path)) {
      connection.destroy();
      return outcome ?? "it was closed while opening";
    }
    this.lives.set(path, connection);
    const state = connection.state!;
    this.update(path, {
      ...this.liveFields(state),
      status: "ready",
      kind: "text",
      diskContent: connection.text.toString(),
    });
    connection.onState((next) => this.lives.get(path) === connection && this.update(path, this.liveFields(next)));
    connection.onEnd((end) => {
      if (this.lives.get(path) === connection)
        this.update(path, { readOnly: true, error: end.reason || "Your access to this project ended." });
    });
    const peers = () => {
      if (this.lives.get(path) !== connection) return;
      const byName = new Map(
        [...connection.peers().values()].map((peer) => [peer.user.name, { ...peer.user, looking: peer.looking }]),
      );
      const next = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
      const key = (list: FileBuffer["peers"]) => list.map((p) => `${p.name}:${p.color}:${p.looking}`).join("\n");
      if (key(next) !== key(this.get(path)?.peers ?? [])) this.update(path, { peers: next });
    };
    connection.awareness.on("change", peers);
    connection.onReset(() => connection.awareness.on("change", peers));
    if (this.looking) connection.awareness.setLocalStateField("looking", this.looking);
    return null;
  }

  /** Tells the others in every live document which file is on screen here. */
  announce(path: string | null) {
    if (this.looking === path) return;
    this.looking = path;
    for (const connection of this.lives.values()) connection.awareness.setLocalStateField("looking", path);
  }

  /** Where `name`'s cursor is in the live document of `path` (an offset), when they have one there. */
  peerHead(path: string, name: string): number | null {
    const connection = this.lives.get(path);
    if (!connection) return null;
    for (const peer of connection.peers().values()) {
      if (peer.user.name !== name || !peer.selection) continue;
      try {
        const at = Y.createAbsolutePositionFromRelativePosition(
          Y.createRelativePositionFromJSON(peer.selection.head),
          connection.doc,
        );
        if (at) return at.index;
      } catch {
        // a position from before a reset
      }
    }
    return null;
  }

  private liveFields(state: LiveDocState): Partial<FileBuffer> {
    return {
      live: true,
      dirty: state.dirty,
      saving: state.saving,
      version: state.version,
      readOnly: state.readOnly,
      error: state.error,
      mergeConflicts: state.conflicts || undefined,
      conflict: null,
    };
  }

  /** Drops the buffer of `path` (its tab closed). */
  unload(path: string) {
    this.merges.delete(path);
    this.lives.get(path)?.destroy();
    this.lives.delete(path);
    this.bridge?.dispose(path);
    this.savedAlt.delete(path);
    const next = new Map(this.buffers);
    next.delete(path);
    this.set(next);
  }

  private applyRead(path: string, result: ReadResult) {
    if (result.kind === "binary") {
      this.update(path, {
        status: "ready",
        kind: "binary",
        size: result.size,
        version: result.version,
        conflict: null,
      });
      return;
    }
    this.update(path, {
      status: "ready",
      kind: "text",
      diskContent: result.content,
      version: result.version,
      size: result.size,
      readOnly: result.readOnly,
      notice: result.notice,
      conflict: null,
      dirty: false,
    });
  }

  /** Follows a rename or move made from this browser: buffers keep their content under the new path. */
  renamed(from: string, to: string) {
    const moved = (p: string) => (isUnder(p, from) ? to + p.slice(from.length) : p);
    const next = new Map<string, FileBuffer>();
    const reopen: string[] = [];
    for (const [path, buffer] of this.buffers) {
      if (!isUnder(path, from)) {
        next.set(path, buffer);
        continue;
      }
      // A live document is the file's at its path: the moved file opens as its own document.
      const live = this.lives.get(path);
      if (live) {
        live.destroy();
        this.lives.delete(path);
        this.bridge?.dispose(path);
        reopen.push(moved(path));
        continue;
      }
      const alt = this.bridge?.rename(path, moved(path));
      this.savedAlt.delete(path);
      // A moved dirty buffer stays dirty until saved (its undo history does not move with it).
      if (alt !== null && alt !== undefined) this.savedAlt.set(moved(path), buffer.dirty ? -1 : alt);
      next.set(moved(path), { ...buffer, path: moved(path), conflict: null });
    }
    this.set(next);
    for (const path of reopen) void this.load(path);
  }

  save(path: string): Promise<void> {
    const f = this.get(path);
    if (f?.status !== "ready" || f.kind !== "text" || f.readOnly) return Promise.resolve();
    const live = this.lives.get(path);
    if (live) return live.save();
    const running = this.saves.get(path);
    if (running) return running;
    const expected = f.conflict?.kind === "deleted" ? null : f.version;
    const promise = this.write(path, expected).finally(() => this.saves.delete(path));
    this.saves.set(path, promise);
    return promise;
  }

  private async write(path: string, expectedVersion: string | null) {
    const snap = this.bridge?.snapshot(path);
    const content = snap?.content ?? this.get(path)?.diskContent ?? "";
    this.update(path, { saving: true, error: undefined });
    try {
      const { version } = await this.api.write(path, content, expectedVersion);
      this.merges.delete(path);
      if (snap) this.savedAlt.set(path, snap.altVersion);
      const now = this.bridge?.snapshot(path);
      this.update(path, {
        saving: false,
        version,
        diskContent: content,
        conflict: null,
        comparing: false,
        mergeConflicts: undefined,
        dirty: now ? now.altVersion !== snap?.altVersion : false,
      });
    } catch (error) {
      this.update(path, { saving: false });
      if (errorCode(error) === "CONFLICT") await this.loadConflict(path);
      else this.update(path, { error: `Could not save: ${errorMessage(error)}` });
    }
  }

  private async loadConflict(path: string) {
    try {
      const disk = await this.api.read(path);
      const conflict: Conflict =
        disk.kind === "text"
          ? { kind: "changed", disk: { content: disk.content, version: disk.version } }
          : { kind: "deleted" };
      this.update(path, { conflict });
    } catch (error) {
      if (errorCode(error) === "NOT_FOUND") this.update(path, { conflict: { kind: "deleted" } });
      else this.update(path, { error: errorMessage(error) });
    }
  }

  /** "Reload (discard mine)": the disk's content replaces the buffer. */
  async reload(path: string) {
    try {
      const result = await this.api.read(path);
      this.merges.delete(path);
      if (result.kind === "text") this.replaceBuffer(path, result.content);
      this.applyRead(path, result);
      this.update(path, { comparing: false });
    } catch (error) {
      if (errorCode(error) === "NOT_FOUND") this.onGone(path);
      else this.update(path, { error: errorMessage(error) });
    }
  }

  /** "Keep mine (overwrite)": writes the buffer over what is on disk now. */
  keepMine(path: string): Promise<void> {
    const f = this.get(path);
    if (!f?.conflict) return this.save(path);
    const expected = f.conflict.kind === "changed" ? f.conflict.disk.version : null;
    return this.write(path, expected);
  }

  /**
   * "Merge": the disk's changes and the buffer's combine (a three-way merge against what the buffer
   * was loaded from); the result stays unsaved in the buffer, one undo away, with any overlapping
   * changes between markers. Saving then writes over the disk's version, which it now includes;
   * undoing the merge brings the conflict back (see `merges`).
   */
  merge(path: string) {
    const f = this.get(path);
    if (f?.conflict?.kind !== "changed") return;
    const snap = this.bridge?.snapshot(path);
    const mine = snap?.content ?? f.diskContent;
    const { text, conflicts } = mergeText(f.diskContent, mine, f.conflict.disk.content);
    const before: Partial<FileBuffer> = {
      diskContent: f.diskContent,
      version: f.version,
      conflict: f.conflict,
      comparing: false,
      mergeConflicts: f.mergeConflicts,
    };
    const after: Partial<FileBuffer> = {
      diskContent: f.conflict.disk.content,
      version: f.conflict.disk.version,
      conflict: null,
      comparing: false,
      mergeConflicts: conflicts || undefined,
    };
    // Not marked as saved: the merged buffer differs from the disk until it is saved.
    const mergedAlt = this.bridge?.replace(path, text);
    this.update(path, after);
    if (snap && typeof mergedAlt === "number" && mergedAlt !== snap.altVersion)
      this.merges.set(path, { beforeAlt: snap.altVersion, mergedAlt, before, after });
  }

  /** Resolves every git conflict block in the buffer to one side or both: unsaved, one undo away. */
  resolveGitConflicts(path: string, choice: ConflictChoice) {
    const f = this.get(path);
    if (f?.kind !== "text" || f.status !== "ready") return;
    const text = this.bridge?.snapshot(path)?.content ?? f.diskContent;
    this.bridge?.replace(path, resolveConflicts(text, choice));
  }

  setComparing(path: string, comparing: boolean) {
    this.update(path, { comparing });
  }

  private replaceBuffer(path: string, content: string) {
    const alt = this.bridge?.replace(path, content);
    if (alt !== null && alt !== undefined) this.savedAlt.set(path, alt);
  }

  /** A change reported by the server's file watcher (ours or anyone else's). */
  async diskChanged(change: FileChange) {
    if (change.type === "unlink" || change.type === "unlinkDir") {
      const affected = [...this.buffers.values()].filter((buffer) => isUnder(buffer.path, change.path) && !buffer.live);
      for (const f of affected) {
        if (f.status === "ready") this.update(f.path, { conflict: { kind: "deleted" } });
      }
      return;
    }
    if (change.type !== "change" && change.type !== "add") return;
    const f = this.get(change.path);
    if (f?.status !== "ready" || f.live) return; // the server merges changes on disk into a live document
    if (change.version && change.version === f.version && !f.conflict) return;
    await this.saves.get(change.path);
    let result: ReadResult;
    try {
      result = await this.api.read(change.path);
    } catch {
      return;
    }
    const now = this.get(change.path);
    if (!now || result.version === now.version) {
      if (now?.conflict?.kind === "deleted") this.update(change.path, { conflict: null });
      return;
    }
    if (!now.dirty || result.kind === "binary") {
      if (result.kind === "text") this.replaceBuffer(change.path, result.content);
      this.applyRead(change.path, result);
    } else {
      this.update(change.path, {
        conflict: { kind: "changed", disk: { content: result.content, version: result.version } },
      });
    }
  }
}
