import { randomUUID } from "node:crypto";
import * as Y from "yjs";
import { Awareness } from "y-protocols/awareness";
import { isWorkspaceError, type Workspace } from "@/server/workspace";
import { mergeAsEdits } from "@/lib/text-merge";

/** The transaction origin of edits that came from the disk (a terminal, git, the agent), not from an editor. */
export const DISK_ORIGIN = "disk";

const MERGE_LABELS = { mine: "unsaved live edits", theirs: "on disk" };
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
  readonly epoch = randomUUID();
  private diskText: string;
  private version: string | null;
  private saving = false;
  private error: string | undefined;
  private conflicts = 0;
  private dirty = false;
  private dirtyTimer: NodeJS.Timeout | undefined;
  private steps: Promise<unknown> = Promise.resolve();
  private listeners = new Set<() => void>();

  constructor(
    private readonly workspace: Workspace,
    /** The file's path as the server resolved it (root-relative, links followed). */
    readonly path: string,
    seed: { content: string; version: string },
  ) {
    this.awareness.setLocalState(null);
    this.text.insert(0, seed.content);
    this.diskText = seed.content;
    this.version = seed.version;
    this.doc.on("update", () => {
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
    return this.step(() => this.syncFromDisk());
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

  destroy() {
    clearTimeout(this.dirtyTimer);
    this.listeners.clear();
    this.awareness.destroy();
    this.doc.destroy();
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

  private async syncFromDisk() {
    let read: Awaited<ReturnType<Workspace["read"]>>;
    try {
      read = await this.workspace.read(this.path);
    } catch (error) {
      if (isWorkspaceError(error) && error.code === "NOT_FOUND") {
        this.version = null;
        this.refreshDirty(true);
        return;
      }
      throw error;
    }
    if (read.version === this.version) return;
    if (read.kind !== "text" || read.readOnly) {
      // Not merged: the editors' text stays, and a save meets the newer version and says so.
      this.error = "The file on disk is no longer text that can be edited here; saving would overwrite it.";
      this.changed();
      return;
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
  }
}
