import type { Socket } from "node:net";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { buildConnector } from "undici";

// An MCP server over plain TCP: newline-delimited JSON-RPC, the stdio framing on a socket (Wren's
// `tcp` transport). The socket is opened by the connector it is given, which holds the address
// check of connection.ts (guarded-fetch.ts guardedConnector), so the address checked is the one
// connected to. The SDK's ReadBuffer caps what a server may send without a newline (10 MB).

export class McpTcpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private socket: Socket | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly connect: buildConnector.connector,
  ) {}

  start(): Promise<void> {
    if (this.socket) throw new Error("the TCP transport is already started");
    const hostname = this.host.replace(/^\[|\]$/g, "");
    return new Promise((resolve, reject) => {
      this.connect(
        { hostname, host: `${this.host}:${this.port}`, protocol: "tcp:", port: String(this.port) },
        (error, socket) => {
          if (error || !socket) {
            reject(error ?? new Error(`TCP connection to ${this.host}:${this.port} failed`));
            return;
          }
          this.socket = socket as Socket;
          this.socket.on("data", (chunk: Buffer) => this.receive(chunk));
          this.socket.on("error", (e) => this.onerror?.(e));
          this.socket.on("close", () => this.onclose?.());
          resolve();
        },
      );
    });
  }

  private receive(chunk: Buffer) {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      this.socket?.destroy();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch {
        this.onerror?.(new Error("the server sent a line that is not a JSON-RPC message"));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed) throw new Error("the TCP connection is not open");
    await new Promise<void>((resolve, reject) =>
      socket.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())),
    );
  }

  async close(): Promise<void> {
    this.socket?.destroy();
  }
}
