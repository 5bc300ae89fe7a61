import * as v from "valibot";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import {
  LiveDocCloseCode,
  LiveMessage,
  liveDocStateSchema,
  type LiveDocState,
  type LivePeer,
} from "./live-doc-protocol";

// An editor's end of a live document (server/live-docs): the local Yjs copy, kept in sync over
// the live socket, with awareness, the shared state and saves. It reconnects by itself; the edits
// made meanwhile travel on reconnection (Yjs sync). Used by the browser's editor and, with the
// `ws` package, by tests and bench:coedit, so they exercise the same client.

/** What the connection needs of a WebSocket: the browser's, or the `ws` package's. */
export type SocketLike = {
  binaryType: string;
  readyState: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
};

/** Why the connection stopped for good: the file is not shared live, or access ended. */
export type LiveDocEnd = { kind: "notLive" | "accessEnded"; reason: string };

const OPEN = 1;
const RETRY_MS = [250, 500, 1000, 2000, 5000];

export class LiveDocConnection {
  doc = new Y.Doc();
  text = this.doc.getText("content");
  awareness = new awarenessProtocol.Awareness(this.doc);
  state: LiveDocState | null = null;
  /** Whether the socket is open and the document synced at least once on it. */
  connected = false;
  private socket: SocketLike | null = null;
  private epoch: string | null = null;
  private attempts = 0;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private stateListeners = new Set<(state: LiveDocState) => void>();
  private resetListeners = new Set<() => void>();
  private endListeners = new Set<(end: LiveDocEnd) => void>();
  private syncedListeners = new Set<() => void>();
  private saveWaiters: Array<() => void> = [];
  private sawSaving = false;
  /** The current socket has had the server's first state (and this client's sync step 1 went out). */
  private greeted = false;
  private undo: Y.UndoManager | null = null;

  constructor(
    private readonly url: string,
    private readonly open: (url: string) => SocketLike,
  ) {
    this.watchDoc();
    this.connect();
  }

  /** Calls `listener` with every state the server sends; returns the function that stops it. */
  onState(listener: (state: LiveDocState) => void) {
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  }

  /** The server started the document afresh (a restart): `doc` and `text` are new objects now. */
  onReset(listener: () => void) {
    this.resetListeners.add(listener);
    return () => void this.resetListeners.delete(listener);
  }

  /** The connection stopped for good (the file is not shared live, access ended). */
  onEnd(listener: (end: LiveDocEnd) => void) {
    this.endListeners.add(listener);
    return () => void this.endListeners.delete(listener);
  }

  /** The document synced with the server's (on every connection, reconnections included). */
  onSynced(listener: () => void) {
    this.syncedListeners.add(listener);
    return () => void this.syncedListeners.delete(listener);
  }

  /** The other people in the document, by awareness client id. */
  peers(): Map<number, LivePeer> {
    const peers = new Map<number, LivePeer>();
    for (const [id, state] of this.awareness.getStates()) {
      if (id !== this.doc.clientID && state && typeof state === "object" && "user" in state)
        peers.set(id, state as LivePeer);
    }
    return peers;
  }

  /** Where `name`'s cursor is in the document (an offset), when they have one here. */
  peerHead(name: string): number | null {
    for (const peer of this.peers().values()) {
      if (peer.user.name !== name || !peer.selection) continue;
      try {
        const at = Y.createAbsolutePositionFromRelativePosition(
          Y.createRelativePositionFromJSON(peer.selection.head),
          this.doc,
        );
        if (at) return at.index;
      } catch {
        // a position from before a reset
      }
    }
    return null;
  }

  /** Asks the server to write the document to disk; resolves when it has (or failed: see state.error). */
  save(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 15_000);
      this.saveWaiters.push(() => (clearTimeout(timer), resolve()));
    });
    this.sawSaving = false;
    this.send(this.frame(LiveMessage.save, () => {}));
    return done;
  }

  /**
   * This person's undo history in the document, which from now on also takes the edits made with
   * `origin`: begun by the text typed into before the editor is in (early-typing.ts), continued by
   * the editor's binding (live-binding.ts), so that Ctrl+Z in the editor takes back what was typed
   * before it too. Only the origins given are tracked: never another person's edits. Begun afresh
   * when a reset replaced the document's text.
   */
  undoHistory(origin: object): Y.UndoManager {
    if (!this.undo?.scope.includes(this.text)) {
      this.undo?.destroy();
      this.undo = new Y.UndoManager(this.text, { trackedOrigins: new Set(), captureTimeout: 400 });
    }
    this.undo.addTrackedOrigin(origin);
    return this.undo;
  }

  destroy() {
    this.undo?.destroy();
    this.stopped = true;
    clearTimeout(this.retryTimer);
    awarenessProtocol.removeAwarenessStates(this.awareness, [this.doc.clientID], "local");
    this.socket?.close(1000, "closed");
    this.socket = null;
    for (const resolve of this.saveWaiters.splice(0)) resolve();
    this.awareness.destroy();
    this.doc.destroy();
  }

  private watchDoc() {
    const doc = this.doc;
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === this || this.state?.readOnly) return;
      this.send(this.frame(LiveMessage.sync, (encoder) => syncProtocol.writeUpdate(encoder, update)));
    });
    this.awareness.on(
      "update",
      ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
        if (origin !== "local") return;
        const clients = [...added, ...updated, ...removed].filter((id) => id === doc.clientID);
        if (clients.length) this.sendAwareness(clients);
      },
    );
  }

  private sendAwareness(clients: number[]) {
    this.send(
      this.frame(LiveMessage.awareness, (encoder) =>
        encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients)),
      ),
    );
  }

  private frame(type: number, write: (encoder: encoding.Encoder) => void) {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, type);
    write(encoder);
    return encoding.toUint8Array(encoder);
  }

  private send(bytes: Uint8Array) {
    if (this.socket?.readyState === OPEN) this.socket.send(bytes);
  }

  private connect() {
    if (this.stopped) return;
    const socket = this.open(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.greeted = false;
    socket.addEventListener("message", (event) => {
      if (this.socket === socket) this.receive(event.data);
    });
    socket.addEventListener("close", ({ code, reason }) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.connected = false;
      awarenessProtocol.removeAwarenessStates(
        this.awareness,
        [...this.awareness.getStates().keys()].filter((id) => id !== this.doc.clientID),
        this,
      );
      if (code === LiveDocCloseCode.notLive || code === LiveDocCloseCode.accessEnded) {
        this.stopped = true;
        const end: LiveDocEnd = { kind: code === LiveDocCloseCode.notLive ? "notLive" : "accessEnded", reason };
        for (const listener of [...this.endListeners]) listener(end);
        return;
      }
      if (this.stopped) return;
      const delay = RETRY_MS[Math.min(this.attempts, RETRY_MS.length - 1)];
      this.attempts += 1;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private receive(data: unknown) {
    const bytes =
      data instanceof ArrayBuffer ? new Uint8Array(data) : data instanceof Uint8Array ? data : new Uint8Array(0);
    const decoder = decoding.createDecoder(bytes);
    const type = decoding.readVarUint(decoder);
    if (type === LiveMessage.state) {
      const state = v.parse(liveDocStateSchema, JSON.parse(decoding.readVarString(decoder)));
      this.takeState(state);
    } else if (type === LiveMessage.sync) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, LiveMessage.sync);
      const step = syncProtocol.readSyncMessage(decoder, encoder, this.doc, this);
      if (encoding.length(encoder) > 1 && !this.state?.readOnly) this.send(encoding.toUint8Array(encoder));
      if (step === syncProtocol.messageYjsSyncStep2) {
        this.connected = true;
        for (const listener of [...this.syncedListeners]) listener();
      }
    } else if (type === LiveMessage.awareness) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(decoder), this);
    }
  }

  private takeState(state: LiveDocState) {
    const first = !this.greeted;
    this.greeted = true;
    const wasWriter = this.state !== null && !this.state.readOnly;
    // A new incarnation on the server (or write access lost) starts from the server's copy: what
    // this copy holds would otherwise be merged into it twice, or be edits it may no longer send.
    if (first && this.epoch !== null && (state.epoch !== this.epoch || (wasWriter && state.readOnly))) this.reset();
    this.epoch = state.epoch;
    this.state = state;
    if (first) {
      this.attempts = 0;
      this.send(this.frame(LiveMessage.sync, (encoder) => syncProtocol.writeSyncStep1(encoder, this.doc)));
      // Set again rather than sent as is: a state's first clock (0) is one receivers ignore.
      const local = this.awareness.getLocalState();
      if (local) this.awareness.setLocalState({ ...local });
    }
    if (state.saving) this.sawSaving = true;
    else if (this.sawSaving) {
      this.sawSaving = false;
      for (const resolve of this.saveWaiters.splice(0)) resolve();
    }
    for (const listener of [...this.stateListeners]) listener(state);
  }

  private reset() {
    const local = this.awareness.getLocalState();
    this.awareness.destroy();
    this.doc.destroy();
    this.doc = new Y.Doc();
    this.text = this.doc.getText("content");
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    this.awareness.setLocalState(local);
    this.watchDoc();
    for (const listener of [...this.resetListeners]) listener();
  }
}
