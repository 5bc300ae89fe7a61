import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "@/scripts/free-port.mjs";

// The real MCP "everything" server from the npm registry, started by tests on a free loopback port
// over one of its network transports.

export const EVERYTHING = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const TRANSPORTS = {
  sse: { ready: "running on port", urlPath: "/sse" },
  streamableHttp: { ready: "listening", urlPath: "/mcp" },
} as const;

export async function startEverythingServer(
  transport: keyof typeof TRANSPORTS,
): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const { ready, urlPath } = TRANSPORTS[transport];
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    // A fixed environment, not the test process's: the server reads only its port.
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", NODE_ENV: "production", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${transport} MCP server did not start`)), 15_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes(ready)) clearTimeout(timer), resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}${urlPath}`, stop: () => child.kill() };
}
