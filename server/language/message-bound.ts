import { Transform, type TransformCallback } from "node:stream";

// What a language server writes is the workspace's code speaking (the TypeScript server is the
// workspace's own typescript when it has one, and any process of the project can write to a
// server's stdout through /proc), and vscode-jsonrpc gathers a message whole before it parses it,
// however long its Content-Length or its headers. This passes the stream through unchanged while
// following its framing, and fails it at a message larger than any a real server sends, so the
// gathering is bounded before it starts.

/** Larger than any answer a real language server gives (a workspace's symbols, semantic tokens). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 8 * 1024;
const END_OF_HEADERS = Buffer.from("\r\n\r\n");

export class MessageBoundError extends Error {}

export class MessageBound extends Transform {
  /** Header bytes of the message under way, while its headers have not ended. */
  private header = Buffer.alloc(0);
  /** Body bytes of the message under way still to come. */
  private remaining = 0;

  constructor(private readonly maxMessage = MAX_MESSAGE_BYTES) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - at);
        this.remaining -= take;
        at += take;
        continue;
      }
      const rest = chunk.subarray(at);
      const pending = this.header.length ? Buffer.concat([this.header, rest]) : rest;
      const end = pending.indexOf(END_OF_HEADERS);
      if (end === -1) {
        if (pending.length > MAX_HEADER_BYTES)
          return done(new MessageBoundError(`the server's message headers ran past ${MAX_HEADER_BYTES} bytes`));
        this.header = Buffer.from(pending);
        break;
      }
      const length = /(?:^|\r\n)content-length:\s*(\d+)\s*(?:\r\n|$)/i.exec(pending.subarray(0, end).toString("ascii"));
      if (!length) return done(new MessageBoundError("the server sent a message without a Content-Length"));
      const size = Number(length[1]);
      if (size > this.maxMessage)
        return done(new MessageBoundError(`the server sent a message of ${size} bytes (at most ${this.maxMessage})`));
      at += end + END_OF_HEADERS.length - this.header.length;
      this.header = Buffer.alloc(0);
      this.remaining = size;
    }
    done(null, chunk);
  }
}
