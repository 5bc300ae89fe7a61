import { createServer, type AddressInfo, type Socket } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

// A real MCP server (the SDK's McpServer) served over a TCP socket on loopback: newline-delimited
// JSON-RPC, the stdio framing, one server per connection. `connections` counts who reached it.

export async function startTcpMcpServer(): Promise<{
  host: string;
  port: number;
  connections: () => number;
  stop(): Promise<void>;
}> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const mcp = new McpServer({ name: "tcp-test", version: "1.0.0" });
    mcp.registerTool("shout", { description: "Shout a word", inputSchema: { word: z.string() } }, async ({ word }) => ({
      content: [{ type: "text", text: `${word.toUpperCase()}!` }],
    }));
    void mcp.connect(new StdioServerTransport(socket, socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: "127.0.0.1",
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
