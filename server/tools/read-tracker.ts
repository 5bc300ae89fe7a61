/**
 * What one agent session has read, so that a write never clobbers a change it has not seen
 * (STALE_READ) and a repeated read of an unchanged file is answered with a short note.
 * Keys are root-relative real paths (`ResolvedPath.path`); versions are `versionOf(bytes)`.
 */
export interface ReadTracker {
  /** The version this session last saw (read or wrote), or undefined if it never did. */
  seenVersion(path: string): string | undefined;
  /**
   * Records that `view` (e.g. "1:2000") of `path` at `version` was sent to the model. Returns true
   * when that same view of that same version was already sent, so the tool can skip resending it.
   */
  recordRead(path: string, version: string, view: string): boolean;
  /** The session wrote `version` itself: it may write again, but has not seen the text as read. */
  recordWrite(path: string, version: string): void;
  /** The model lost earlier tool output (context compaction): resend on the next read. */
  forgetViews(): void;
}

interface Entry {
  version: string;
  views: Set<string>;
}

class MemoryReadTracker implements ReadTracker {
  private readonly entries = new Map<string, Entry>();

  seenVersion(path: string): string | undefined {
    return this.entries.get(path)?.version;
  }

  recordRead(path: string, version: string, view: string): boolean {
    const entry = this.entries.get(path);
    if (entry && entry.version === version) {
      const repeated = entry.views.has(view);
      entry.views.add(view);
      return repeated;
    }
    this.entries.set(path, { version, views: new Set([view]) });
    return false;
  }

  recordWrite(path: string, version: string): void {
    this.entries.set(path, { version, views: new Set() });
  }

  forgetViews(): void {
    for (const entry of this.entries.values()) entry.views.clear();
  }
}

/** An in-memory tracker; the agent runtime keeps one per agent session. */
export function createReadTracker(): ReadTracker {
  return new MemoryReadTracker();
}
