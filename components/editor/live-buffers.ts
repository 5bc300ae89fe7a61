import type { LiveDocConnection } from "@/lib/live-doc-connection";
import type { LiveDocState } from "@/lib/live-doc-protocol";
import type { FileApi, FileBuffer } from "./file-buffer";

// The open files that are live documents (lib/live-doc-connection.ts): the server holds each one's
// shared state, so its buffer's dirty, saving, version and errors come from there, with the other
// people in it and the file each has on screen (follow mode). file-buffers.ts keeps the others.

/** How long a file waits for its live document before it opens the old way (a proxy without WebSockets). */
const LIVE_WAIT_MS = 5_000;

/** What the live documents change in the buffers they belong to. */
export type BufferAccess = {
  get(path: string): FileBuffer | undefined;
  update(path: string, patch: Partial<FileBuffer>): void;
};

export class LiveBuffers {
  private connections = new Map<string, LiveDocConnection>();
  /** The file on screen here, told to the others in every live document (follow mode). */
  private looking: string | null = null;

  constructor(
    private readonly connect: FileApi["live"],
    private readonly buffers: BufferAccess,
  ) {}

  /** Whether files are offered as live documents at all (not in a session's own tree). */
  get offered(): boolean {
    return this.connect !== undefined;
  }

  /** The live document of `path`, when it is one. */
  connection(path: string): LiveDocConnection | undefined {
    return this.connections.get(path);
  }

  /**
   * Opens `path` as a live document: null when it is one, else why not (then it is read the old
   * way), as the server said it ("over 1 MB") or "the live connection did not answer".
   */
  async open(path: string): Promise<string | null> {
    const connection = await this.connect!(path);
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
    if (outcome !== null || !this.buffers.get(path)) {
      connection.destroy();
      return outcome ?? "it was closed while opening";
    }
    this.connections.set(path, connection);
    const state = connection.state!;
    this.buffers.update(path, {
      ...liveFields(state),
      status: "ready",
      kind: "text",
      diskContent: connection.text.toString(),
    });
    const current = () => this.connections.get(path) === connection;
    connection.onState((next) => current() && this.buffers.update(path, liveFields(next)));
    connection.onEnd((end) => {
      if (current())
        this.buffers.update(path, { readOnly: true, error: end.reason || "Your access to this project ended." });
    });
    const peers = () => {
      if (!current()) return;
      const byName = new Map(
        [...connection.peers().values()].map((peer) => [peer.user.name, { ...peer.user, looking: peer.looking }]),
      );
      const next = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
      const key = (list: FileBuffer["peers"]) => list.map((p) => `${p.name}:${p.color}:${p.looking}`).join("\n");
      if (key(next) !== key(this.buffers.get(path)?.peers ?? [])) this.buffers.update(path, { peers: next });
    };
    connection.awareness.on("change", peers);
    connection.onReset(() => connection.awareness.on("change", peers));
    if (this.looking) connection.awareness.setLocalStateField("looking", this.looking);
    return null;
  }

  /** Leaves the live document of `path`; false when it was not one. */
  close(path: string): boolean {
    const connection = this.connections.get(path);
    if (!connection) return false;
    connection.destroy();
    this.connections.delete(path);
    return true;
  }

  closeAll() {
    for (const connection of this.connections.values()) connection.destroy();
    this.connections.clear();
  }

  /** Tells the others in every live document which file is on screen here. */
  announce(path: string | null) {
    if (this.looking === path) return;
    this.looking = path;
    for (const connection of this.connections.values()) connection.awareness.setLocalStateField("looking", path);
  }
}

function liveFields(state: LiveDocState): Partial<FileBuffer> {
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
