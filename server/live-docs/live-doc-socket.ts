import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import type { WebSocket } from "ws";
import { LiveDocCloseCode, LiveMessage, type LiveDocState } from "@/lib/live-doc-protocol";
import type { LiveDoc } from "./live-doc";

/** The most a person's awareness state (name, colour, selection) may weigh. */
const MAX_AWARENESS_STATE_CHARS = 4096;

class Refused extends Error {}

/** An update's frame, made once for all the document's editors (30 editors: 29 sends of one frame). */
const updateFrames = new WeakMap<Uint8Array, Uint8Array>();
function updateFrame(update: Uint8Array): Uint8Array {
  let framed = updateFrames.get(update);
  if (!framed) {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, LiveMessage.sync);
    syncProtocol.writeUpdate(encoder, update);
    framed = encoding.toUint8Array(encoder);
    updateFrames.set(update, framed);
  }
  return framed;
}

/**
 * Serves one editor's connection to a live document: Yjs sync and awareness as y-websocket frames
 * them, the document's state, and saves. `canWrite` is asked for every edit and save: an edit
 * from a connection that may not write (a viewer, someone just downgraded) is dropped and the
 * socket closed, whatever the browser's editor allowed. Awareness is rewritten here with the
 * person's name and colour, so nobody can appear as someone else.
 */
export function serveLiveDoc(
  ws: WebSocket,
  doc: LiveDoc,
  options: { who: { name: string; color: string }; canWrite: () => boolean; onClose: () => void },
) {
  const { who, canWrite } = options;
  const send = (bytes: Uint8Array) => {
    if (ws.readyState === ws.OPEN) ws.send(bytes);
  };
  const frame = (type: number, write: (encoder: encoding.Encoder) => void) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, type);
    write(encoder);
    return encoding.toUint8Array(encoder);
  };
  const sendState = () => {
    const state: LiveDocState = { epoch: doc.epoch, readOnly: !canWrite(), you: who, ...doc.state() };
    send(frame(LiveMessage.state, (encoder) => encoding.writeVarString(encoder, JSON.stringify(state))));
  };
  /** The awareness client ids this connection speaks for (removed when it goes). */
  const controlled = new Set<number>();

  const onUpdate = (update: Uint8Array, origin: unknown) => {
    if (origin !== ws) send(updateFrame(update));
  };
  const onAwareness = (
    { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
    origin: unknown,
  ) => {
    const clients = [...added, ...updated, ...removed];
    if (origin === ws) for (const id of [...added, ...updated]) controlled.add(id);
    send(
      frame(LiveMessage.awareness, (encoder) =>
        encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(doc.awareness, clients)),
      ),
    );
  };
  doc.doc.on("update", onUpdate);
  doc.awareness.on("update", onAwareness);
  const stopState = doc.onState(sendState);

  sendState();
  // A writer is asked for what it has (its edits made while disconnected); a reader has nothing to give.
  if (canWrite()) send(frame(LiveMessage.sync, (encoder) => syncProtocol.writeSyncStep1(encoder, doc.doc)));
  const others = [...doc.awareness.getStates().keys()];
  if (others.length)
    send(
      frame(LiveMessage.awareness, (encoder) =>
        encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(doc.awareness, others)),
      ),
    );

  const refuse = (reason: string) => ws.close(LiveDocCloseCode.refused, reason);

  ws.on("message", (data, isBinary) => {
    try {
      if (!isBinary) throw new Refused("Live document frames are binary.");
      const bytes = data instanceof Buffer ? data : Buffer.concat(data as Buffer[]);
      const decoder = decoding.createDecoder(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      const type = decoding.readVarUint(decoder);
      if (type === LiveMessage.sync) {
        const step = decoding.readVarUint(decoder);
        if (step === syncProtocol.messageYjsSyncStep1) {
          const vector = decoding.readVarUint8Array(decoder);
          send(frame(LiveMessage.sync, (encoder) => syncProtocol.writeSyncStep2(encoder, doc.doc, vector)));
        } else if (step === syncProtocol.messageYjsSyncStep2 || step === syncProtocol.messageYjsUpdate) {
          if (!canWrite()) throw new Refused("This document is read-only for you: the edit was not applied.");
          Y.applyUpdate(doc.doc, decoding.readVarUint8Array(decoder), ws);
        } else throw new Refused("Unknown sync message.");
      } else if (type === LiveMessage.awareness) {
        const update = ownAwareness(decoding.readVarUint8Array(decoder), controlled, who, (id) =>
          doc.awareness.getStates().has(id),
        );
        awarenessProtocol.applyAwarenessUpdate(doc.awareness, update, ws);
      } else if (type === LiveMessage.save) {
        if (!canWrite()) throw new Refused("This document is read-only for you: it was not saved.");
        void doc.save();
      } else throw new Refused("Unknown message type.");
    } catch (error) {
      refuse(error instanceof Refused ? error.message : "Malformed live document frame.");
    }
  });

  ws.once("close", () => {
    doc.doc.off("update", onUpdate);
    doc.awareness.off("update", onAwareness);
    stopState();
    awarenessProtocol.removeAwarenessStates(doc.awareness, [...controlled], null);
    options.onClose();
  });
}

/**
 * The awareness update as this connection may send it: for its own client only (the first id it
 * speaks for; another's would let it move or remove their cursor), with the person's name and
 * colour put in by the server, a bounded selection, and the file the person looks at (follow mode).
 */
function ownAwareness(
  update: Uint8Array,
  controlled: Set<number>,
  who: { name: string; color: string },
  present: (clientId: number) => boolean,
): Uint8Array {
  const decoder = decoding.createDecoder(update);
  const encoder = encoding.createEncoder();
  const count = decoding.readVarUint(decoder);
  if (count > 1) throw new Refused("One awareness state per connection.");
  encoding.writeVarUint(encoder, count);
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder);
    const clock = decoding.readVarUint(decoder);
    const json = decoding.readVarString(decoder);
    if (controlled.size > 0 ? !controlled.has(clientId) : present(clientId))
      throw new Refused("That awareness state is someone else's.");
    if (json.length > MAX_AWARENESS_STATE_CHARS) throw new Refused("Awareness state too large.");
    const state = JSON.parse(json) as { selection?: unknown; looking?: unknown } | null;
    const looking = typeof state?.looking === "string" && state.looking.length <= 1000 ? state.looking : undefined;
    const rewritten =
      state === null
        ? null
        : { user: who, ...(state.selection ? { selection: state.selection } : {}), ...(looking ? { looking } : {}) };
    encoding.writeVarUint(encoder, clientId);
    encoding.writeVarUint(encoder, clock);
    encoding.writeVarString(encoder, JSON.stringify(rewritten));
  }
  return encoding.toUint8Array(encoder);
}
