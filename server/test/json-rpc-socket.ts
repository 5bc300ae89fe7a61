import type WebSocket from "ws";

/** One JSON-RPC call on a language socket, and its answer (tests of the language WebSocket). */
export function jsonRpcCall(ws: WebSocket, id: number, method: string, params: unknown) {
  // biome-ignore lint/suspicious/noExplicitAny: tests read the fields of the JSON-RPC result they asked for
  return new Promise<{ result?: any; error?: { message: string } }>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString());
      if (message.id !== id) return;
      ws.off("message", onMessage);
      resolve(message);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
}
