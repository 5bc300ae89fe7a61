import type { FileChange, ReadResult } from "@/lib/fs-schemas";
import { resolveConflicts, type ConflictChoice } from "@/lib/git-conflicts";
import { errorCode, errorMessage } from "@/components/ui/error-message";
import { mergeText } from "@/components/editor/merge";
import type { TabMemoryStore } from "@/components/editor/tab-memory";

// The open editor tabs of one project, and how they follow the disk. Buffers live in Monaco
// models (reached through an EditorBridge once Monaco has loaded); this store keeps what was last
// read from or written to disk, so it can tell a clean tab (reload it) from a dirty one (conflict).

export type Conflict = { kind: "changed"; disk: { content: string; version: string } } | { kind: "deleted" };

export type OpenFile = {
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
};

export type FileApi = {
  read(path: string): Promise<ReadResult>;
  write(path: string, content: string, expectedVersion: string | null): Promise<{ version: string }>;
};

/** What the store needs from Monaco; the editor registers it once loaded. */
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

/** The Changes tab: the review of one agent session's changes (components/review), beside the file tabs. */
export type ChangesTab = { sessionId: string };

/** A place to show once the file's editor is on screen (a search result): the cursor goes there, selecting `length` characters. */
export type Reveal = { path: string; line: number; column: number; length: number };

/** The Source Control diff tab: one file's change in the working tree or the index (components/git). */
export type GitDiffTab = { path: string; side: "worktree" | "index" };

export type OpenFilesState = {
  files: OpenFile[];
  active: string | null;
  changes: ChangesTab | null;
  changesActive: boolean;
  gitDiff: GitDiffTab | null;
  gitDiffActive: boolean;
  reveal: Reveal | null;
};

const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

export class OpenFilesStore {
  private state: OpenFilesState = {
    files: [],
    active: null,
    changes: null,
    changesActive: false,
    gitDiff: null,
    gitDiffActive: false,
    reveal: null,
  };
  private listeners = new Set<() => void>();
  private bridge: EditorBridge | null = null;
  private savedAlt = new Map<string, number>();
  private saves = new Map<string, Promise<void>>();
  /** Monaco view states (scroll, cursor) by path, remembered with the tabs. */
  private views = new Map<string, unknown>();
  /** Restored view states not yet applied to an editor. */
  private pendingViews = new Set<string>();

  constructor(
    private api: FileApi,
    private memory: TabMemoryStore | null = null,
  ) {}

  /** Reopens the tabs remembered for this project (tab-memory.ts), as they are on disk now. */
  async restore() {
    const remembered = this.memory?.load();
    if (!remembered || this.state.files.length > 0) return;
    for (const [path, view] of Object.entries(remembered.views)) {
      this.views.set(path, view);
      this.pendingViews.add(path);
    }
    await Promise.all(remembered.paths.map((path) => this.open(path)));
    // A file deleted or unreadable since is not brought back as an error tab.
    for (const file of this.state.files.filter((f) => f.status === "error")) this.close(file.path);
    if (remembered.active) this.activate(remembered.active);
  }

  /** The editor's view of `path` changed (scrolled, cursor moved): remember it with the tabs. */
  rememberView(path: string, view: unknown) {
    if (!this.get(path)) return;
    this.views.set(path, view);
    this.pendingViews.delete(path);
    this.persist();
  }

  /** A restored view state for `path`, once: the editor widget keeps it from then on. */
  takeRestoredView(path: string): unknown {
    if (!this.pendingViews.delete(path)) return undefined;
    return this.views.get(path);
  }

  private persist() {
    if (!this.memory) return;
    const paths = this.state.files.filter((f) => f.status !== "error").map((f) => f.path);
    const views = Object.fromEntries(paths.filter((p) => this.views.has(p)).map((p) => [p, this.views.get(p)]));
    this.memory.save({ paths, active: this.state.active, views });
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getSnapshot = () => this.state;

  get(path: string) {
    return this.state.files.find((f) => f.path === path);
  }

  private setState(next: Partial<OpenFilesState>) {
    const before = this.state;
    this.state = { ...this.state, ...next };
    if (
      before.active !== this.state.active ||
      before.files.length !== this.state.files.length ||
      before.files.some((f, i) => f.path !== this.state.files[i]?.path)
    )
      this.persist();
    for (const listener of this.listeners) listener();
  }

  private update(path: string, patch: Partial<OpenFile>) {
    this.setState({ files: this.state.files.map((f) => (f.path === path ? { ...f, ...patch } : f)) });
  }

  get hasBridge() {
    return this.bridge !== null;
  }

  setBridge(bridge: EditorBridge) {
    this.bridge = bridge;
  }

  dispose() {
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
    const dirty = altVersion !== this.savedAlt.get(path);
    if (this.get(path)?.dirty !== dirty) this.update(path, { dirty });
  }

  activate(path: string) {
    if (this.get(path)) this.setState({ active: path, changesActive: false, gitDiffActive: false });
  }

  /** Opens the Changes tab for an agent session (one at a time) and shows it. */
  openChanges(sessionId: string) {
    this.setState({ changes: { sessionId }, changesActive: true, gitDiffActive: false });
  }

  activateChanges() {
    if (this.state.changes) this.setState({ changesActive: true, gitDiffActive: false });
  }

  /** Opens (or replaces) the Source Control diff tab and shows it. */
  openGitDiff(tab: GitDiffTab) {
    this.setState({ gitDiff: tab, gitDiffActive: true, changesActive: false });
  }

  activateGitDiff() {
    if (this.state.gitDiff) this.setState({ gitDiffActive: true, changesActive: false });
  }

  closeGitDiff() {
    this.setState({ gitDiff: null, gitDiffActive: false });
  }

  closeChanges() {
    this.setState({ changes: null, changesActive: false });
  }

  /** Opens `path` (or shows its tab) with the cursor at `at`, once its editor is on screen. */
  openAt(path: string, at: { line: number; column: number; length?: number }) {
    this.setState({ reveal: { path, line: at.line, column: at.column, length: at.length ?? 0 } });
    return this.open(path);
  }

  /** The place `openAt` asked for in `path`, once: back on the tab later, the cursor stays where it was left. */
  takeReveal(path: string): Reveal | null {
    const reveal = this.state.reveal;
    if (reveal?.path !== path) return null;
    this.setState({ reveal: null });
    return reveal;
  }

  async open(path: string) {
    if (this.get(path)) return this.activate(path);
    const file: OpenFile = {
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
    };
    this.setState({ files: [...this.state.files, file], active: path, changesActive: false, gitDiffActive: false });
    try {
      this.applyRead(path, await this.api.read(path));
    } catch (error) {
      this.update(path, { status: "error", error: errorMessage(error) });
    }
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

  close(path: string) {
    const index = this.state.files.findIndex((f) => f.path === path);
    if (index < 0) return;
    const files = this.state.files.filter((f) => f.path !== path);
    const active = this.state.active === path ? ((files[index] ?? files[index - 1])?.path ?? null) : this.state.active;
    this.bridge?.dispose(path);
    this.savedAlt.delete(path);
    this.views.delete(path);
    this.pendingViews.delete(path);
    this.setState({ files, active });
  }

  /** Closes every tab at or under `path` (a deleted file or folder). */
  closeUnder(path: string) {
    for (const f of this.state.files.filter((file) => isUnder(file.path, path))) this.close(f.path);
  }

  /** Follows a rename or move made from this browser: tabs keep their buffers under the new path. */
  renamed(from: string, to: string) {
    const moved = (p: string) => (isUnder(p, from) ? to + p.slice(from.length) : p);
    for (const f of this.state.files.filter((file) => isUnder(file.path, from))) {
      const alt = this.bridge?.rename(f.path, moved(f.path));
      this.savedAlt.delete(f.path);
      // A moved dirty buffer stays dirty until saved (its undo history does not move with it).
      if (alt !== null && alt !== undefined) this.savedAlt.set(moved(f.path), f.dirty ? -1 : alt);
      if (this.views.has(f.path)) this.views.set(moved(f.path), this.views.get(f.path));
      this.views.delete(f.path);
    }
    this.setState({
      files: this.state.files.map((f) => (isUnder(f.path, from) ? { ...f, path: moved(f.path), conflict: null } : f)),
      active: this.state.active && moved(this.state.active),
    });
  }

  save(path: string): Promise<void> {
    const f = this.get(path);
    if (f?.status !== "ready" || f.kind !== "text" || f.readOnly) return Promise.resolve();
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
      if (result.kind === "text") this.replaceBuffer(path, result.content);
      this.applyRead(path, result);
      this.update(path, { comparing: false });
    } catch (error) {
      if (errorCode(error) === "NOT_FOUND") this.close(path);
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
   * changes between markers. Saving then writes over the disk's version, which it now includes.
   */
  merge(path: string) {
    const f = this.get(path);
    if (f?.conflict?.kind !== "changed") return;
    const mine = this.bridge?.snapshot(path)?.content ?? f.diskContent;
    const { text, conflicts } = mergeText(f.diskContent, mine, f.conflict.disk.content);
    // Not marked as saved: the merged buffer differs from the disk until it is saved.
    this.bridge?.replace(path, text);
    this.update(path, {
      diskContent: f.conflict.disk.content,
      version: f.conflict.disk.version,
      conflict: null,
      comparing: false,
      mergeConflicts: conflicts || undefined,
    });
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
      for (const f of this.state.files.filter((file) => isUnder(file.path, change.path))) {
        if (f.status === "ready") this.update(f.path, { conflict: { kind: "deleted" } });
      }
      return;
    }
    if (change.type !== "change" && change.type !== "add") return;
    const f = this.get(change.path);
    if (f?.status !== "ready") return;
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
