// Live co-editing: keystroke-to-remote-apply latency with 2, 10 and 30 editors in one file, through
// Tandem's live document room (server/live-docs: the server's Yjs document, the read-only check,
// awareness, the shared state) and through a bare relay of the same Yjs frames (a server that only
// forwards each frame to the others), measured in the same run; and the server's memory per open
// document. Run with `npm run bench:coedit`. Figures only: nothing here fails a build.
//
// Editors are the real client (lib/live-doc-connection.ts) in this process, not browsers: the
// figure is the server's part of the path (frame in, document, frames out) plus the sockets, which
// is what the room adds to what the editors' own drawing costs anyway. Every editor types one
// character every TYPE_MS at a random place, all at once; a keystroke's latency is the time until
// each other editor has applied it. Authentication happens once per socket and is left out.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import * as Y from "yjs";
import { LiveDocConnection, type SocketLike } from "@/lib/live-doc-connection";
import { LiveMessage } from "@/lib/live-doc-protocol";
import { createLiveDocs } from "@/server/live-docs/live-docs";
import { serveLiveDoc } from "@/server/live-docs/live-doc-socket";
import { openWorkspace } from "@/server/workspace";

const EDITORS = [2, 10, 30];
const TYPE_MS = 200;
const DURATION_MS = Number(process.argv[2] ?? 6_000);
const MEMORY_DOCS = 40;
const SEED = Array.from({ length: 400 }, (_, i) => `line ${i} of a source file, long enough to be typical`).join("\n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Editor = { doc: () => Y.Doc; text: () => Y.Text; close(): void };

/** Keystroke times by `client:clock`, and the delays seen by the other editors. */
function recorder() {
  const sent = new Map<string, number>();
  const delays: number[] = [];
  return {
    sent,
    delays,
    watch(doc: Y.Doc) {
      doc.on("afterTransaction", (transaction: Y.Transaction) => {
        if (transaction.origin === null) return; // this editor's own keystroke
        const now = performance.now();
        for (const [client, after] of transaction.afterState) {
          const before = transaction.beforeState.get(client) ?? 0;
          for (let clock = before; clock < after; clock++) {
            const at = sent.get(`${client}:${clock}`);
            if (at !== undefined) delays.push(now - at);
          }
        }
      });
    },
  };
}

async function typeTogether(editors: Editor[], record: ReturnType<typeof recorder>) {
  const end = performance.now() + DURATION_MS;
  await Promise.all(
    editors.map(async (editor, index) => {
      await sleep((TYPE_MS * index) / editors.length);
      while (performance.now() < end) {
        const text = editor.text();
        const clock = Y.getState(editor.doc().store, editor.doc().clientID);
        record.sent.set(`${editor.doc().clientID}:${clock}`, performance.now());
        text.insert(Math.floor(Math.random() * text.length), "x");
        await sleep(TYPE_MS);
      }
    }),
  );
  await sleep(1_000); // the last keystrokes arrive
}

function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function listen(wss: WebSocketServer): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer();
  server.on("upgrade", (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req)),
  );
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** Tandem's room: a live document served by serveLiveDoc, editors on LiveDocConnection. */
async function throughTandem(count: number, root: string) {
  const workspace = await openWorkspace(root);
  const docs = createLiveDocs();
  const wss = new WebSocketServer({ noServer: true });
  wss.on("connection", async (ws) => {
    const { doc, leave } = await docs.open("bench", workspace, "file.txt");
    serveLiveDoc(ws, doc, { who: { name: "Bench", color: "#3e63dd" }, canWrite: () => true, onClose: leave });
  });
  const { server, url } = await listen(wss);
  const record = recorder();
  const editors: Editor[] = [];
  for (let i = 0; i < count; i++) {
    const connection = new LiveDocConnection(url, (u) => new WebSocket(u) as unknown as SocketLike);
    await new Promise<void>((resolve) => connection.onSynced(resolve));
    record.watch(connection.doc);
    editors.push({ doc: () => connection.doc, text: () => connection.text, close: () => connection.destroy() });
  }
  await typeTogether(editors, record);
  for (const editor of editors) editor.close();
  await docs.dispose();
  server.close();
  return record.delays;
}

/** The reference: the same Yjs update frames, forwarded by a server that holds no document. */
async function throughBareRelay(count: number) {
  const wss = new WebSocketServer({ noServer: true });
  wss.on("connection", (ws) => {
    ws.on("message", (data, isBinary) => {
      for (const other of wss.clients)
        if (other !== ws && other.readyState === other.OPEN) other.send(data, { binary: isBinary });
    });
  });
  const { server, url } = await listen(wss);
  const seed = new Y.Doc();
  seed.getText("content").insert(0, SEED);
  const seedUpdate = Y.encodeStateAsUpdate(seed);
  const record = recorder();
  const editors: Editor[] = [];
  for (let i = 0; i < count; i++) {
    const doc = new Y.Doc();
    Y.applyUpdate(doc, seedUpdate, "seed");
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    await new Promise((resolve) => ws.once("open", resolve));
    ws.on("message", (data: ArrayBuffer) => {
      const bytes = new Uint8Array(data);
      // [sync, update, length, ...update]: the same frame the live socket carries.
      Y.applyUpdate(doc, readUpdate(bytes), ws);
    });
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === null) ws.send(frameUpdate(update));
    });
    record.watch(doc);
    editors.push({ doc: () => doc, text: () => doc.getText("content"), close: () => ws.close() });
  }
  await typeTogether(editors, record);
  for (const editor of editors) editor.close();
  server.close();
  return record.delays;
}

function frameUpdate(update: Uint8Array): Uint8Array {
  const length: number[] = [];
  let n = update.length;
  while (n > 127) {
    length.push((n & 127) | 128);
    n >>>= 7;
  }
  length.push(n);
  return new Uint8Array([LiveMessage.sync, 2, ...length, ...update]);
}

function readUpdate(frame: Uint8Array): Uint8Array {
  let at = 2;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = frame[at++]!;
    length |= (byte & 127) << shift;
    if (byte < 128) break;
  }
  return frame.subarray(at, at + length);
}

async function memoryPerDocument(root: string) {
  const workspace = await openWorkspace(root);
  for (let i = 0; i < MEMORY_DOCS; i++) writeFileSync(path.join(root, `doc-${i}.txt`), SEED);
  const docs = createLiveDocs();
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const held = [];
  for (let i = 0; i < MEMORY_DOCS; i++) held.push(await docs.open("memory", workspace, `doc-${i}.txt`));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  for (const { leave } of held) leave();
  await docs.dispose();
  return { perDocKb: (after - before) / MEMORY_DOCS / 1024, fileKb: Buffer.byteLength(SEED) / 1024, measured: !!gc };
}

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), "bench-coedit-"));
  writeFileSync(path.join(root, "file.txt"), SEED);
  console.log(
    `bench:coedit, ${os.cpus().length} cores, Node ${process.version}, ${DURATION_MS} ms of typing, one key every ${TYPE_MS} ms per editor`,
  );
  // Memory first, before the typing rounds leave garbage behind.
  const memory = await memoryPerDocument(root);
  console.log("editors | Tandem p50 / p99 (ms) | bare relay p50 / p99 (ms) | p99 ratio");
  for (const count of EDITORS) {
    const tandem = await throughTandem(count, root);
    const relay = await throughBareRelay(count);
    const row = [
      String(count).padStart(7),
      `${percentile(tandem, 50).toFixed(1)} / ${percentile(tandem, 99).toFixed(1)}`.padStart(21),
      `${percentile(relay, 50).toFixed(1)} / ${percentile(relay, 99).toFixed(1)}`.padStart(25),
      `${(percentile(tandem, 99) / percentile(relay, 99)).toFixed(2)}x`.padStart(9),
    ];
    console.log(row.join(" | "));
  }
  console.log(
    memory.measured
      ? `memory: ${memory.perDocKb.toFixed(0)} KB of heap per open document of ${memory.fileKb.toFixed(0)} KB`
      : "memory: run with node --expose-gc (npm run bench:coedit does) to measure it",
  );
  rmSync(root, { recursive: true, force: true });
  process.exit(0);
}

await main();
