import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { parseMcpServersText } from "@/lib/mcp-config";
import { useToolSessions } from "@/server/test/tool-session";
import { EVERYTHING, startEverythingServer } from "@/server/test/everything-mcp-server";
import { createMcpServers, sandboxedLauncher } from "./project-servers";
import { testSandbox } from "@/server/test/sandbox";
import { createRedactor } from "@/server/secrets/redactor";

// MCP configurations as other tools write them, and the transports they name, against real
// servers started here: the "everything" server over the old HTTP+SSE transport (reached by the
// fallback from streamable HTTP) and over stdio with includeTools, and a WebSocket server.

const session = useToolSessions();
// The test servers listen on loopback, which an admin allows with TANDEM_MCP_ALLOW_HOSTS.
const servers = createMcpServers({ fetchPolicy: { allowHosts: ["127.0.0.1"] }, maxBackoffMs: 500 });
let root: string;
let sse: Awaited<ReturnType<typeof startEverythingServer>>;
let sseUrl: string;
let wss: WebSocketServer;
let wsUrl: string;
const wsHeaders: Array<string | undefined> = [];
const launch = () => sandboxedLauncher(root, testSandbox("none"));

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-mcp-t-")));
  sse = await startEverythingServer("sse");
  sseUrl = sse.url;

  // A WebSocket MCP server: JSON-RPC over text frames with the "mcp" subprotocol.
  wss = new WebSocketServer({
    port: 0,
    host: "127.0.0.1",
    handleProtocols: (protocols) => (protocols.has("mcp") ? "mcp" : false),
  });
  wss.on("connection", (socket, request) => {
    wsHeaders.push(request.headers.authorization);
    socket.on("message", (data) => {
      const msg = JSON.parse(String(data)) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string; arguments?: { word?: string } };
      };
      const reply = (result: unknown) => socket.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      if (msg.method === "initialize")
        reply({
          protocolVersion: msg.params!.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "ws-server", version: "1" },
        });
      else if (msg.method === "tools/list")
        reply({
          tools: [
            {
              name: "shout",
              description: "Shout a word",
              inputSchema: { type: "object", properties: { word: { type: "string" } } },
            },
          ],
        });
      else if (msg.method === "tools/call")
        reply({ content: [{ type: "text", text: `${msg.params!.arguments!.word!.toUpperCase()}!` }] });
    });
  });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  wsUrl = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/mcp`;
}, 30_000);

afterAll(async () => {
  await servers.dispose();
  sse?.stop();
  wss?.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe("MCP configurations from other tools", () => {
  it("reads gemini-cli's httpUrl, Claude Code's and Cursor's type, VS Code's servers key and a WebSocket url", () => {
    const gemini = parseMcpServersText(
      JSON.stringify({
        theme: "dark",
        mcpServers: { api: { httpUrl: "https://api.example.com/mcp", headers: { A: "1" } } },
      }),
    );
    expect(gemini).toEqual({
      ok: true,
      servers: { api: { url: "https://api.example.com/mcp", type: "http", headers: { A: "1" } } },
    });
    const claude = parseMcpServersText(
      JSON.stringify({
        mcpServers: {
          local: { type: "stdio", command: "npx", args: ["-y", "x"] },
          old: { type: "sse", url: "https://old.example.com/sse" },
        },
      }),
    );
    expect(claude.ok && Object.keys(claude.servers)).toEqual(["local", "old"]);
    const vscode = parseMcpServersText(
      JSON.stringify({ servers: { gh: { type: "http", url: "https://gh.example.com/mcp" } } }),
    );
    expect(vscode.ok && vscode.servers.gh).toEqual({ type: "http", url: "https://gh.example.com/mcp" });
    expect(
      parseMcpServersText(JSON.stringify({ mcpServers: { live: { url: "wss://live.example.com/mcp" } } })).ok,
    ).toBe(true);
    const mismatch = parseMcpServersText(
      JSON.stringify({ mcpServers: { live: { type: "sse", url: "ws://x.example.com" } } }),
    );
    expect(mismatch).toMatchObject({ ok: false, problems: [{ path: "mcpServers.live.type" }] });
  });
});

describe("MCP transports", () => {
  it("falls back to the HTTP+SSE transport when a url without a type does not speak streamable HTTP", async () => {
    await servers.sync("sse", { legacy: { url: sseUrl } }, launch());
    const tools = await servers.tools("sse");
    expect(tools.map((t) => t.name)).toContain("legacy__echo");
    expect(servers.status("sse")[0]).toMatchObject({ status: "connected", transport: "sse" });
    const run = await (await session()).run(tools.find((t) => t.name === "legacy__echo")!, { message: "over sse" });
    expect(run.llm).toBe("Echo: over sse");
  }, 30_000);

  it("offers only includeTools (and never excludeTools)", async () => {
    await servers.sync(
      "inc",
      {
        everything: {
          command: process.execPath,
          args: [EVERYTHING, "stdio"],
          includeTools: ["echo", "get-sum"],
          excludeTools: ["get-sum"],
        },
      },
      launch(),
    );
    expect((await servers.tools("inc")).map((t) => t.name)).toEqual(["everything__echo"]);
  }, 30_000);

  it("starts a stdio server with the project's secrets, and hides their values in what it printed", async () => {
    const value = "mcp-secret-0123456789";
    const secrets = async () => ({
      env: { MCP_SECRET: value },
      redactor: createRedactor([{ name: "MCP_SECRET", value }]),
    });
    const launcher = sandboxedLauncher(root, testSandbox("none"), undefined, secrets);
    const launched = await launcher({ command: process.execPath, args: [EVERYTHING, "stdio"] });
    expect(launched.env.MCP_SECRET).toBe(value);
    expect(launched.redact?.(`boom: ${value}`)).toBe("boom: [secret MCP_SECRET]");
    await servers.sync(
      "env",
      { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], includeTools: ["get-env"] } },
      launcher,
    );
    const [getEnv] = await servers.tools("env");
    expect(getEnv?.name).toBe("everything__get-env");
    // The value reaches the server; the session's event log hides it from the model (secret-redaction.test.ts).
    expect((await (await session()).run(getEnv!, {})).llm).toContain(value);
  }, 30_000);

  it("connects to a WebSocket server with the config's headers and calls its tool", async () => {
    await servers.sync("ws", { live: { url: wsUrl, headers: { Authorization: "Bearer w" } } }, launch());
    const tools = await servers.tools("ws");
    expect(tools.map((t) => t.name)).toEqual(["live__shout"]);
    expect(servers.status("ws")[0]).toMatchObject({ status: "connected", transport: "websocket" });
    expect(wsHeaders.at(-1)).toBe("Bearer w");
    const run = await (await session()).run(tools[0]!, { word: "hello" });
    expect(run.llm).toBe("HELLO!");
  }, 30_000);
});
