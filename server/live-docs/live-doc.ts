import { randomUUID } from "node:crypto";
import * as Y from "yjs";
import { Awareness } from "y-protocols/awareness";
import { isWorkspaceError, type Workspace } from "@/server/workspace";
import { mergeAsEdits } from "@/lib/text-merge";
import type { JournalEntry } from "./unsaved-journal";
import { AgentCursors, type AgentAuthor } from "./agent-cursors";

/** The transaction origin of edits that came from the disk (a terminal, git, the agent), not from an editor. */
export const DISK_ORIGIN = "disk";

const MERGE_LABELS = { mine: "unsaved live edits", theirs: "on disk" };

/** How far behind the typing the unsaved journal may be. */
const JOURNAL_MS = 2_000;

/** One document's place in the unsaved journal. */
export type DocJournal = { write(entry: JournalEntry): Promise<void>; remove(): Promise<void> };

/** How often the shared dirty mark is recomputed while people type (it reads the whole text). */
const DIRTY_CHECK_MS = 100;

export type DiskState = {
  dirty: boolean;
  saving: boolean;
  version: string | null;
  error?: string;
  conflicts: number;
};

/**
 * Reads only the file really at `path` (root-relative, links resolved): a name swapped for a link
 * since the document was filed under it never puts another file's text into it, which a view link
 * (admitted by that path) would then see.
 */
export const ownFile = (path: string) => ({
  admits: (real: string) => real === path,
  refusal: `'${path}' now leads to another file.`,
});

/**
 * One file shared live: a Yjs document seeded from the disk on the server, its editors' awareness,
 * and how it follows the disk. Saving writes the text through the workspace with the version the
 * document last synced (so a newer file on disk is never overwritten unseen); a change on disk
 * that was not its own save is merged in as edits (against the last synced text: lib/text-merge.ts
 * mergeAsEdits), so people keep typing through it, and where a change on disk overlaps unsaved
 * typing both versions stay between markers. Disk work runs one step at a time.
 */
export class LiveDoc {
  readonly doc = new Y.Doc();
  readonly text = this.doc.getText("content");
  readonly awareness = new Awareness(this.doc);
  readonly epoch: string;
  private diskText: string;
  private version: string | null;
  private saving = false;
  private error: string | undefined;
  private conflicts = 0;
  private dirty = false;
  private dirtyTimer: NodeJS.Timeout | undefined;
  private steps: Promise<unknown> = Promise.resolve();
  private listeners = new Set<() => void>();
  private readonly agents = new AgentCursors(this.awareness, this.text, DISK_ORIGIN);

  private autosaveTimer: NodeJS.Timeout | undefined;
  /** Where the last change from disk landed (the agent's cursor goes there when the watcher was first). */
  private lastMerge: { range: { start: number; end: number } } | undefined;
  private readonly autosaveMs: () => Promise<number | null>;
  private readonly journal: DocJournal | undefined;
  private journalTimer: NodeJS.Timeout | undefined;
  /** Whether the journal holds this document's unsaved state (removed once it is saved). */
  private journaled = false;
  private journalOps: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly workspace: Workspace,
    /** The file's path as the server resolved it (root-relative, links followed). */
    readonly path: string,
    seed: { content: string; version: string },
    options: {
      /** The project's autosave delay, asked after each edit (null: off). */
      autosaveMs?: () => Promise<number | null>;
      /** Where its unsaved state is kept a few seconds behind (unsaved-journal.ts). */
      journal?: DocJournal;
      /** The state a previous holder kept: the document continues from it (then merges the disk's changes since). */
      kept?: JournalEntry;
    } = {},
  ) {
    this.autosaveMs = options.autosaveMs ?? (async () => null);
    this.journal = options.journal;
    this.awareness.setLocalState(null);
    const kept = options.kept;
    if (kept) {
      Y.applyUpdate(this.doc, kept.update, DISK_ORIGIN);
      this.epoch = kept.epoch;
      this.diskText = kept.diskText;
      this.version = kept.version;
      this.journaled = true;
      this.dirty = this.unsaved();
    } else {
      this.text.insert(0, seed.content);
      this.epoch = randomUUID();
      this.diskText = seed.content;
      this.version = seed.version;
    }
    this.doc.on("update", (_update: Uint8Array, origin: unknown) => {
      this.armJournal();
      if (origin !== DISK_ORIGIN) this.armAutosave();
      if (this.dirtyTimer) return;
      this.dirtyTimer = setTimeout(() => {
        this.dirtyTimer = undefined;
        this.refreshDirty();
      }, DIRTY_CHECK_MS);
    });
  }

  state(): DiskState {
    return {
      dirty: this.dirty,
      saving: this.saving,
      version: this.version,
      conflicts: this.conflicts,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Whether the text differs from the disk's now (the shared dirty mark may be up to DIRTY_CHECK_MS late). */
  unsaved(): boolean {
    return this.version === null || this.text.toString() !== this.diskText;
  }

  /** Calls `listener` whenever the state changes; returns the function that stops it. */
  onState(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Writes the document to disk (anyone's Ctrl/Cmd+S); resolves once written or refused. */
  save(): Promise<void> {
    return this.step(() => this.saveNow());
  }

  /** The file changed on disk (the watcher saw it): merge it in unless it is our own save. */
  diskChanged(version: string | undefined): Promise<void> {
    if (version !== undefined && version === this.version) return Promise.resolve();
    return this.step(async () => void (await this.syncFromDisk()));
  }

  /**
   * The agent wrote the file (through the workspace, like any write): merge it in at once rather
   * than when the watcher sees it, and show the agent's cursor over what changed for a few seconds.
   */
  agentWrote(version: string, by: AgentAuthor): Promise<void> {
    return this.step(async () => {
      // The watcher may have merged it in first: then the cursor goes where that merge landed.
      const changed = version === this.version ? this.lastMerge?.range : await this.syncFromDisk();
      if (changed && this.version === version) this.agents.show(by, changed);
    });
  }

  /** The file was deleted on disk: the document stays, unsaved, and a save writes it again. */
  diskDeleted(): Promise<void> {
    return this.step(async () => {
      const gone = await this.workspace.stat(this.path).then(
        () => false,
        (error: unknown) => isWorkspaceError(error) && error.code === "NOT_FOUND",
      );
      if (!gone) return;
      this.version = null;
      this.refreshDirty(true);
    });
  }

  /**
   * Writes the unsaved state to the journal now (the project moves to another instance, or this
   * one stops), or removes it when everything is saved.
   */
  flushJournal(): Promise<void> {
    clearTimeout(this.journalTimer);
    this.journalTimer = undefined;
    const journal = this.journal;
    if (!journal || this.doc.isDestroyed) return this.journalOps.then(() => undefined);
    const unsaved = this.unsaved();
    if (!unsaved && !this.journaled) return this.journalOps.then(() => undefined);
    const entry = unsaved
      ? { epoch: this.epoch, version: this.version, diskText: this.diskText, update: Y.encodeStateAsUpdate(this.doc) }
      : null;
    this.journaled = unsaved;
    const op = this.journalOps.then(() => (entry ? journal.write(entry) : journal.remove()));
    this.journalOps = op.catch((error: unknown) => console.error(`keeping unsaved ${this.path}:`, error));
    return this.journalOps.then(() => undefined);
  }

  /** Gives up its unsaved state for good (nobody came back for it): the journal forgets it too. */
  async abandon() {
    this.destroy();
    await this.journalOps;
    await this.journal?.remove().catch(() => undefined);
  }

  destroy() {
    clearTimeout(this.journalTimer);
    clearTimeout(this.dirtyTimer);
    clearTimeout(this.autosaveTimer);
    this.autosaveTimer = undefined;
    this.agents.destroy();
    this.listeners.clear();
    this.awareness.destroy();
    this.doc.destroy();
  }

  /**
   * Autosave, once for everyone (the server's document, not each browser): the delay after the
   * last edit, then the same save as anyone's Ctrl/Cmd+S. Each edit moves it further out.
   */
  private armAutosave() {
    void this.autosaveMs()
      .then((ms) => {
        clearTimeout(this.autosaveTimer);
        if (ms === null || this.doc.isDestroyed) return;
        this.autosaveTimer = setTimeout(() => {
          if (this.unsaved()) void this.save();
        }, ms).unref();
      })
      .catch(() => undefined);
  }

  /** The journal follows a few seconds behind the typing: what a holder that dies loses at most. */
  private armJournal() {
    if (!this.journal || this.journalTimer) return;
    this.journalTimer = setTimeout(() => void this.flushJournal(), JOURNAL_MS).unref();
  }

  private step(task: () => Promise<void>): Promise<void> {
    const run = this.steps.then(task, task);
    this.steps = run.catch(() => undefined);
    return run;
  }

  private changed() {
    for (const listener of [...this.listeners]) listener();
  }

  private refreshDirty(force = false) {
    const dirty = this.version === null || this.text.toString() !== this.diskText;
    if (dirty === this.dirty && !force) return;
    this.dirty = dirty;
    if (!dirty && this.journaled) void this.flushJournal();
    this.changed();
  }

  private async saveNow() {
    this.saving = true;
    this.error = undefined;
    this.changed();
    try {
      // A change on disk the watcher has not told yet is merged first, then the save is tried again.
      for (let attempt = 0; ; attempt++) {
        const content = this.text.toString();
        try {
          const { version } = await this.workspace.write(this.path, content, {
            expectedVersion: this.version,
            createParents: this.version === null,
          });
          this.diskText = content;
          this.version = version;
          this.conflicts = 0;
          break;
        } catch (error) {
          if (!isWorkspaceError(error) || error.code !== "CONFLICT" || attempt >= 2) throw error;
          await this.syncFromDisk();
        }
      }
    } catch (error) {
      this.error = `Could not save: ${(error as Error).message}`;
    } finally {
      this.saving = false;
      this.refreshDirty(true);
    }
  }

  /** Merges the file on disk in; returns where in the text the change landed, if anything changed. */
  private async syncFromDisk(): Promise<{ start: number; end: number } | null> {
    let read: Awaited<ReturnType<Workspace["read"]>>;
    try {
      read = await this.workspace.read(this.path, ownFile(this.path));
    } catch (error) {
      if (isWorkspaceError(error) && error.code === "NOT_FOUND") {
        this.version = null;
        this.refreshDirty(true);
        return null;
      }
      throw error;
    }
    if (read.version === this.version) return null;
    if (read.kind !== "text" || read.readOnly) {
      // Not merged: the editors' text stays, and a save meets the newer version and says so.
      this.error = "The file on disk is no longer text that can be edited here; saving would overwrite it.";
      this.changed();
      return null;
    }
    const current = this.text.toString();
    const merged = mergeAsEdits(this.diskText, current, read.content, MERGE_LABELS);
    const edits = merged.edits;
    this.doc.transact(() => {
      for (const edit of [...edits].reverse()) {
        if (edit.remove) this.text.delete(edit.at, edit.remove);
        if (edit.insert) this.text.insert(edit.at, edit.insert);
      }
    }, DISK_ORIGIN);
    this.diskText = read.content;
    this.version = read.version;
    this.conflicts += merged.conflicts;
    this.error = undefined;
    this.refreshDirty(true);
    const range = changedRange(edits);
    this.lastMerge = range ? { range } : undefined;
    return range;
  }
}

/** The span of the document the edits (in ascending order, as the text was before them) cover afterwards. */
function changedRange(edits: readonly { at: number; remove: number; insert: string }[]) {
  if (edits.length === 0) return null;
  let shift = 0;
  for (const edit of edits.slice(0, -1)) shift += edit.insert.length - edit.remove;
  const last = edits[edits.length - 1]!;
  return { start: edits[0]!.at, end: last.at + shift + last.insert.length };
}
