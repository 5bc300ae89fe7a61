import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** Where the reading end of a pair puts what it reads, set by whoever takes the pair. */
export interface ReadInto {
  /** The buffer the next read fills. */
  room(): Uint8Array;
  /** `nread` bytes were read into `buffer` (the last room given, or a scratch buffer before the first). */
  received(nread: number, buffer: Uint8Array): boolean;
}

/** A connected pair of Unix sockets: a child process writes into `writer`, `reader` reads into `into`. */
export interface SocketPair {
  reader: net.Socket;
  writer: net.Socket;
  into: ReadInto;
}

// Node cannot make a bare pipe or socketpair, and a child's stdout pipe allocates a buffer per
// read; a socket made by hand reads into buffers of our choosing (onread). Making one takes a
// few turns of the event loop and two of the thread pool, which a loaded server stretches to
// tens of milliseconds: so one pair is kept ready, made after each search.
let spare: Promise<SocketPair | null> | null = null;

async function makePair(): Promise<SocketPair> {
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-pair-"));
  const server = net.createServer();
  try {
    const socketPath = path.join(dir, "socket");
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socketPath, resolve));
    const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
    const scratch = Buffer.allocUnsafe(64 * 1024);
    const into: ReadInto = { room: () => scratch, received: () => true };
    const reader = net.connect({
      path: socketPath,
      onread: { buffer: () => into.room(), callback: (nread, buffer) => into.received(nread, buffer) },
    });
    await new Promise<void>((resolve, reject) => reader.once("connect", resolve).once("error", reject));
    const writer = await accepted;
    // Closed by their owner; an error while waiting as the spare is only the end of that pair.
    reader.on("error", () => undefined);
    writer.on("error", () => undefined);
    reader.unref();
    writer.unref();
    return { reader, writer, into };
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Makes the spare pair, if there is none: best once a search has ended, competing with none. */
export function prepareSocketPair(): void {
  spare ??= makePair().catch(() => null);
}

/** A fresh connected pair (the spare when one is ready); the caller owns and closes both ends. */
export async function takeSocketPair(): Promise<SocketPair> {
  const taken = spare;
  spare = null;
  const pair = (taken && (await taken)) ?? (await makePair());
  pair.reader.ref();
  return pair;
}
