import type { FileChange, ReadResult } from "@/lib/fs-schemas";
import { resolveConflicts, type ConflictChoice } from "@/lib/git-conflicts";
import { errorCode, errorMessage } from "@/components/ui/error-message";
import { mergeText } from "@/lib/text-merge";
import type { LiveDocConnection } from "@/lib/live-doc-connection";
import { isUnder, type Conflict, type EditorBridge, type FileApi, type FileBuffer } from "./file-buffer";
import { LiveBuffers } from "./live-buffers";

// The open files' contents and how they follow the disk: what was last read from or written to
// disk, whether the buffer differs from it (dirty), saving, and a conflict with the disk (the
// "changed on disk" banner). The text itself lives in Monaco models, reached through an
// EditorBridge once Monaco has loaded. Which files are open as tabs is open-tabs.ts.
// A text file under the live size limit is a live document instead (lib/live-doc-connection.ts):
// the server holds its one shared state, so dirty, saving and changes on disk come from there and
// the banner never shows for it; other files, and every file when the live socket cannot be
// reached, follow the disk as before (live-buffers.ts).

export class FileBuffers {
  private buffers: ReadonlyMap<string, FileBuffer> = new Map();
  private listeners = new Set<() => void>();
  private bridge: EditorBridge | null = null;
  private savedAlt = new Map<string, number>();
  private saves = new Map<string, Promise<void>>();
  private lives: LiveBuffers;
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

  constructor(private api: FileApi) {
    this.lives = new LiveBuffers(api.live, {
      get: (path) => this.get(path),
      update: (path, patch) => this.update(path, patch),
    });
  }

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
    this.lives.closeAll();
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
    if (this.lives.connection(path)) return; // the server says whether a live document is dirty
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
    if (this.lives.offered && this.api.preview)
      void this.api.preview(path).then((preview) => {
        if (preview !== null && this.get(path)?.status === "loading") this.update(path, { preview });
      });
    const notLive = this.lives.offered ? await this.lives.open(path) : undefined;
    if (notLive !== null) {
      try {
        this.applyRead(path, await this.api.read(path));
        if (notLive) this.update(path, { notLive });
      } catch (error) {
        this.update(path, { status: "error", error: errorMessage(error) });
      }
    }
    if (this.get(path)?.preview !== undefined) this.update(path, { preview: undefined });
  }

  /** The live document of `path`, when it is one (the editor binds its model to it). */
  liveConnection(path: string): LiveDocConnection | undefined {
    return this.lives.connection(path);
  }

  /** Tells the others in every live document which file is on screen here. */
  announce(path: string | null) {
    this.lives.announce(path);
  }

  /** Where `name`'s cursor is in the live document of `path` (an offset), when they have one there. */
  peerHead(path: string, name: string): number | null {
    return this.lives.connection(path)?.peerHead(name) ?? null;
  }

  /** Drops the buffer of `path` (its tab closed). */
  unload(path: string) {
    this.merges.delete(path);
    this.lives.close(path);
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
      if (this.lives.close(path)) {
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
    const live = this.lives.connection(path);
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
