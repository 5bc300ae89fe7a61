import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createTestServices } from "@/server/test/services";
import { startEverythingServer } from "@/server/test/everything-mcp-server";
import { useToolSessions } from "@/server/test/tool-session";

// A project's admin points a remote MCP server at the server's own neighbourhood, as an attacker
// would: a real HTTP and WebSocket server on loopback stands for the internal service. The
// server connects to remote MCP servers itself, so each URL must pass web_fetch's address check;
// only an admin of the whole server allows a local one (TANDEM_MCP_ALLOW_HOSTS).

let internal: Server;
let internalWs: WebSocketServer;
let port = 0;
let wsPort = 0;
const reached: string[] = [];
let allowed: Awaited<ReturnType<typeof startEverythingServer>>;
let env: Awaited<ReturnType<typeof createTestServices>>;
const session = useToolSessions();

beforeAll(async () => {
  internal = createServer((req, res) => {
    reached.push(`${req.method} ${req.headers.host}${req.url}`);
    res.writeHead(404).end("internal service");
  });
  await new Promise<void>((resolve) => internal.listen(0, "127.0.0.1", resolve));
  port = (internal.address() as AddressInfo).port;
  internalWs = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  internalWs.on("connection", (_socket, req) => reached.push(`WS ${req.headers.host}${req.url}`));
  await new Promise<void>((resolve) => internalWs.once("listening", () => resolve()));
  wsPort = (internalWs.address() as AddressInfo).port;
  allowed = await startEverythingServer("streamableHttp");
  env = await createTestServices({ extensions: { mcpAllowHosts: [new URL(allowed.url).host] } });
}, 30_000);

afterAll(async () => {
  await env?.dispose();
  allowed?.stop();
  internal?.close();
  internalWs?.close();
});

async function projectAdmin() {
  const caller = createCallerFactory(appRouter)(env.context(await env.createUser()));
  return { caller, project: await caller.project.create({ name: "Remote MCP" }) };
}

describe("remote MCP servers and the address check", () => {
  it("refuses loopback, a name for loopback, IPv4-mapped loopback, WebSocket and the metadata address: the internal service sees nothing", async () => {
    const { caller, project } = await projectAdmin();
    const servers = {
      loopback: { url: `http://127.0.0.1:${port}/mcp` },
      named: { url: `http://localhost:${port}/mcp`, type: "http" },
      legacy: { url: `http://127.0.0.1:${port}/sse`, type: "sse" },
      mapped: { url: `http://[::ffff:127.0.0.1]:${port}/mcp` },
      socket: { url: `ws://127.0.0.1:${wsPort}/mcp` },
      metadata: { url: "http://169.254.169.254/latest/mcp" },
    };
    expect(
      await caller.extensions.updateSettings({
        projectId: project.id,
        mcpServersText: JSON.stringify({ mcpServers: servers }),
      }),
    ).toEqual({ ok: true });
    const { servers: status } = await caller.extensions.status({ projectId: project.id });
    expect(reached).toEqual([]);
    expect(status.map((s) => s.name).sort()).toEqual(Object.keys(servers).sort());
    for (const server of status) {
      expect({ name: server.name, status: server.status, tools: server.tools }).toEqual({
        name: server.name,
        status: "failed",
        tools: [],
      });
      expect(server.error).toMatch(
        /^refused: .* is not a public address \((loopback|IPv4-mapped IPv6|link-local \(cloud metadata lives here\))\), .*TANDEM_MCP_ALLOW_HOSTS=/,
      );
    }
    expect(status.find((s) => s.name === "named")!.error).toMatch(
      /localhost \((127\.0\.0\.1|::1)\) is not a public address/,
    );
    // A reconnect asks again, and is refused again.
    await caller.extensions.reconnect({ projectId: project.id, server: "loopback" });
    expect(
      (await caller.extensions.status({ projectId: project.id })).servers.find((s) => s.name === "loopback")!.status,
    ).toBe("failed");
    expect(reached).toEqual([]);
  }, 30_000);

  it("connects to a local server the server's admin allowed with TANDEM_MCP_ALLOW_HOSTS", async () => {
    const { caller, project } = await projectAdmin();
    await caller.extensions.updateSettings({
      projectId: project.id,
      mcpServersText: JSON.stringify({ mcpServers: { everything: { url: allowed.url, type: "http" } } }),
    });
    const [server] = (await caller.extensions.status({ projectId: project.id })).servers;
    expect(server).toMatchObject({ name: "everything", status: "connected", transport: "streamable-http" });
    expect(server!.tools).toContain("echo");
  }, 30_000);

  it("with the project's network policy off, connects to no remote server, even an allowed one, and calls none already connected", async () => {
    const { caller, project } = await projectAdmin();
    await caller.extensions.updateSettings({
      projectId: project.id,
      mcpServersText: JSON.stringify({ mcpServers: { everything: { url: allowed.url, type: "http" } } }),
    });
    expect((await caller.extensions.status({ projectId: project.id })).servers[0]).toMatchObject({
      status: "connected",
    });
    const tools = await env.services.extensions!.projectTools.tools(
      project.id,
      await env.services.files.open(project.id),
    );
    const echo = tools.find((t) => t.name === "everything__echo")!;
    await caller.network.update({ projectId: project.id, policy: "off", allowHosts: [] });
    const run = await (await session()).run(echo, { message: "the project's data" });
    expect(run.error?.code).toBe("UNAVAILABLE");
    expect(run.llm).toMatch(/network policy is off/);
    await caller.extensions.reconnect({ projectId: project.id, server: "everything" });
    const [server] = (await caller.extensions.status({ projectId: project.id })).servers;
    expect(server).toMatchObject({ status: "failed" });
    expect(server!.error).toMatch(/^refused: this project's network policy is off.*project owner or admin can change/);
  }, 30_000);
});
