import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { WebSocket, type Dispatcher } from "undici";

// The MCP WebSocket transport (subprotocol "mcp", one JSON-RPC message per text frame). The SDK's
// own WebSocketClientTransport uses the global WebSocket, which Node 20 does not have, and cannot
// send headers; this one is the same protocol over undici's WebSocket, with the config's headers,
// connecting through the dispatcher it is given (the address check of connection.ts).

export class McpWebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private socket: WebSocket | undefined;

  constructor(
    private readonly url: URL,
    private readonly headers: Record<string, string>,
    private readonly dispatcher: Dispatcher,
  ) {}

  start(): Promise<void> {
    if (this.socket) throw new Error("the WebSocket transport is already started");
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, {
        protocols: ["mcp"],
        headers: this.headers,
        dispatcher: this.dispatcher,
      });
      this.socket = socket;
      socket.onerror = () => {
        const error = new Error(`WebSocket connection to ${this.url.host} failed`);
        reject(error);
        this.onerror?.(error);
      };
      socket.onopen = () => resolve();
      socket.onclose = () => this.onclose?.();
      socket.onmessage = (event) => {
        const parsed = (() => {
          try {
            return JSONRPCMessageSchema.safeParse(JSON.parse(String(event.data)));
          } catch (error) {
            return { success: false as const, error };
          }
        })();
        if (parsed.success) this.onmessage?.(parsed.data);
        else this.onerror?.(new Error("the server sent a message that is not JSON-RPC"));
      };
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) throw new Error("the WebSocket is not open");
    this.socket.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.socket?.close();
  }
}
