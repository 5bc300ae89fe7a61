import { isUnder } from "@/components/editor/file-buffer";
import type { FileBuffers } from "@/components/editor/file-buffers";
import type { TabMemoryStore } from "@/components/editor/tab-memory";

// The editor's tabs of one project: which files are open, in which order, which one is shown, the
// Changes and Source Control diff tabs beside them, and each file's scroll and cursor, remembered
// in this browser (tab-memory.ts). Opening a tab loads its file's buffer and closing it drops the
// buffer (file-buffers.ts holds the contents, dirty state and conflicts with the disk).

/** Paths as the editor names them: tools may be given "./src/a.ts" for "src/a.ts". */
export function relativePath(path: string): string {
  return path.replace(/^\.\//, "");
}

/** The Changes tab: the review of one agent session's changes (components/review), beside the file tabs. */
export type ChangesTab = { sessionId: string };

/** A place to show once the file's editor is on screen (a search result): the cursor goes there, selecting `length` characters. */
export type Reveal = { path: string; line: number; column: number; length: number };

/** The Source Control diff tab: one file's change in the working tree or the index (components/git). */
export type GitDiffTab = { path: string; side: "worktree" | "index" };

export type TabsState = {
  /** The open files' paths, in tab order. */
  paths: string[];
  active: string | null;
  changes: ChangesTab | null;
  changesActive: boolean;
  gitDiff: GitDiffTab | null;
  gitDiffActive: boolean;
  reveal: Reveal | null;
  /**
   * The file whose editor should take the keyboard once it shows: opened from Quick Open, or
   * (`restored`) the active tab reopened after a reload, which yields to whatever the person gave
   * the keyboard to meanwhile (restored-focus.ts).
   */
  focus: { path: string; restored: boolean } | null;
  /** Follow mode: the person whose file and cursor this editor follows, by name, until this person moves. */
  following: string | null;
};

export class OpenTabs {
  private state: TabsState = {
    paths: [],
    active: null,
    changes: null,
    changesActive: false,
    gitDiff: null,
    gitDiffActive: false,
    reveal: null,
    focus: null,
    following: null,
  };
  private listeners = new Set<() => void>();
  /** Monaco view states (scroll, cursor) by path, remembered with the tabs. */
  private views = new Map<string, unknown>();
  /** Restored view states not yet applied to an editor. */
  private pendingViews = new Set<string>();

  constructor(
    private buffers: FileBuffers,
    private memory: TabMemoryStore | null = null,
  ) {
    buffers.onGone = (path) => this.close(path);
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getSnapshot = () => this.state;

  has(path: string) {
    return this.state.paths.includes(path);
  }

  /** Reopens the tabs remembered for this project (tab-memory.ts), as they are on disk now. */
  async restore() {
    const remembered = this.memory?.load();
    if (!remembered || this.state.paths.length > 0) return;
    for (const [path, view] of Object.entries(remembered.views)) {
      this.views.set(path, view);
      this.pendingViews.add(path);
    }
    const opening = Promise.all(remembered.paths.map((path) => this.open(path)));
    // Shown while the files load (its text can show before theirs are all in), and not shown
    // again once they are: a tab the person picked meanwhile stays.
    if (remembered.active && this.has(remembered.active)) {
      this.activate(remembered.active);
      // As VS Code does: typing goes on in the editor that was left, without a click into it first.
      this.setState({ focus: { path: remembered.active, restored: true } });
    }
    await opening;
    // A file deleted or unreadable since is not brought back as an error tab.
    for (const path of this.state.paths.filter((p) => this.buffers.get(p)?.status === "error")) this.close(path);
  }

  /** The editor's view of `path` changed (scrolled, cursor moved): remember it with the tabs. */
  rememberView(path: string, view: unknown) {
    if (!this.has(path)) return;
    this.views.set(path, view);
    this.pendingViews.delete(path);
    this.persist();
  }

  /** The restored view state of `path` not yet taken by an editor (the text shown before the editor follows it). */
  restoredView(path: string): unknown {
    return this.pendingViews.has(path) ? this.views.get(path) : undefined;
  }

  /** A restored view state for `path`, once: the editor widget keeps it from then on. */
  takeRestoredView(path: string): unknown {
    if (!this.pendingViews.delete(path)) return undefined;
    return this.views.get(path);
  }

  private persist() {
    if (!this.memory) return;
    const paths = this.state.paths.filter((p) => this.buffers.get(p)?.status !== "error");
    const views = Object.fromEntries(paths.filter((p) => this.views.has(p)).map((p) => [p, this.views.get(p)]));
    this.memory.save({ paths, active: this.state.active, views });
  }

  private setState(next: Partial<TabsState>) {
    const before = this.state;
    this.state = { ...this.state, ...next };
    if (
      before.active !== this.state.active ||
      before.paths.length !== this.state.paths.length ||
      before.paths.some((p, i) => p !== this.state.paths[i])
    )
      this.persist();
    for (const listener of this.listeners) listener();
  }

  activate(path: string) {
    if (this.has(path))
      this.setState({ active: path, changesActive: false, gitDiffActive: false, focus: this.focusShowing(path) });
  }

  /** The keyboard asked for, once `path` is shown: a restored tab's is dropped when another tab is picked. */
  private focusShowing(path: string | null): TabsState["focus"] {
    const { focus } = this.state;
    return focus?.restored && focus.path !== path ? null : focus;
  }

  /** Opens the Changes tab for an agent session (one at a time) and shows it. */
  openChanges(sessionId: string) {
    this.setState({
      changes: { sessionId },
      changesActive: true,
      gitDiffActive: false,
      focus: this.focusShowing(null),
    });
  }

  activateChanges() {
    if (this.state.changes)
      this.setState({ changesActive: true, gitDiffActive: false, focus: this.focusShowing(null) });
  }

  /** Opens (or replaces) the Source Control diff tab and shows it. */
  openGitDiff(tab: GitDiffTab) {
    this.setState({ gitDiff: tab, gitDiffActive: true, changesActive: false, focus: this.focusShowing(null) });
  }

  activateGitDiff() {
    if (this.state.gitDiff)
      this.setState({ gitDiffActive: true, changesActive: false, focus: this.focusShowing(null) });
  }

  closeGitDiff() {
    this.setState({ gitDiff: null, gitDiffActive: false });
  }

  closeChanges() {
    this.setState({ changes: null, changesActive: false });
  }

  /** Follows a person (their file opens here, scrolled to their cursor), or stops following. */
  follow(name: string | null) {
    if (this.state.following !== name) this.setState({ following: name });
  }

  /** Opens `path` (or shows its tab) with the cursor at `at`, once its editor is on screen. */
  openAt(path: string, at: { line: number; column: number; length?: number }) {
    this.setState({ reveal: { path, line: at.line, column: at.column, length: at.length ?? 0 } });
    return this.open(path);
  }

  /** Opens `path` (or shows its tab) and gives its editor the keyboard once it is on screen. */
  openFocused(path: string) {
    this.setState({ focus: { path, restored: false } });
    return this.open(path);
  }

  /** Whether the keyboard was asked for in `path`'s editor (`openFocused`, or a restore), once. */
  takeFocus(path: string): { restored: boolean } | null {
    const { focus } = this.state;
    if (focus?.path !== path) return null;
    this.setState({ focus: null });
    return focus;
  }

  /** The place `openAt` asked for in `path`, once: back on the tab later, the cursor stays where it was left. */
  takeReveal(path: string): Reveal | null {
    const reveal = this.state.reveal;
    if (reveal?.path !== path) return null;
    this.setState({ reveal: null });
    return reveal;
  }

  /** Shows the tab of `path`, opening it (and reading the file) when it is not open. */
  async open(path: string) {
    if (this.has(path)) return this.activate(path);
    const loading = this.buffers.load(path);
    this.setState({
      paths: [...this.state.paths, path],
      active: path,
      changesActive: false,
      gitDiffActive: false,
      focus: this.focusShowing(path),
    });
    await loading;
  }

  close(path: string) {
    const index = this.state.paths.indexOf(path);
    if (index < 0) return;
    const paths = this.state.paths.filter((p) => p !== path);
    const active = this.state.active === path ? (paths[index] ?? paths[index - 1] ?? null) : this.state.active;
    this.views.delete(path);
    this.pendingViews.delete(path);
    this.setState({ paths, active, focus: this.state.focus?.path === path ? null : this.state.focus });
    this.buffers.unload(path);
  }

  /** Closes every tab at or under `path` (a deleted file or folder). */
  closeUnder(path: string) {
    for (const p of this.state.paths.filter((open) => isUnder(open, path))) this.close(p);
  }

  /** Follows a rename or move made from this browser: tabs keep their buffers under the new path. */
  renamed(from: string, to: string) {
    const moved = (p: string) => (isUnder(p, from) ? to + p.slice(from.length) : p);
    this.buffers.renamed(from, to);
    for (const p of this.state.paths.filter((open) => isUnder(open, from))) {
      if (this.views.has(p)) this.views.set(moved(p), this.views.get(p));
      this.views.delete(p);
    }
    this.setState({ paths: this.state.paths.map(moved), active: this.state.active && moved(this.state.active) });
  }
}
