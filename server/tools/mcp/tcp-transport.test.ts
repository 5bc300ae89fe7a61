import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMcpServersText } from "@/lib/mcp-config";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createTestServices } from "@/server/test/services";
import { startTcpMcpServer } from "@/server/test/tcp-mcp-server";
import { useToolSessions } from "@/server/test/tool-session";

// An MCP server over TCP (`{ "tcp": { host, port } }`), through the project settings of a running
// server: a real MCP server on loopback that the server's admin allowed, and another that stands
// for an internal service, which a project admin points the config at as an attacker would.

let allowed: Awaited<ReturnType<typeof startTcpMcpServer>>;
let internal: Awaited<ReturnType<typeof startTcpMcpServer>>;
let env: Awaited<ReturnType<typeof createTestServices>>;
const session = useToolSessions();

beforeAll(async () => {
  allowed = await startTcpMcpServer();
  internal = await startTcpMcpServer();
  env = await createTestServices({ extensions: { mcpAllowHosts: [`127.0.0.1:${allowed.port}`] } });
}, 30_000);

afterAll(async () => {
  await env?.dispose();
  await allowed?.stop();
  await internal?.stop();
});

async function projectWith(servers: Record<string, unknown>) {
  const caller = createCallerFactory(appRouter)(env.context(await env.createUser()));
  const project = await caller.project.create({ name: "TCP MCP" });
  expect(
    await caller.extensions.updateSettings({
      projectId: project.id,
      mcpServersText: JSON.stringify({ mcpServers: servers }),
    }),
  ).toEqual({ ok: true });
  return { caller, project };
}

describe("MCP over TCP", () => {
  it("reads a tcp key and names what is wrong with a bad one", () => {
    expect(
      parseMcpServersText(JSON.stringify({ mcpServers: { t: { tcp: { host: "mcp.example.com", port: 7000 } } } })),
    ).toEqual({ ok: true, servers: { t: { tcp: { host: "mcp.example.com", port: 7000 } } } });
    const bad = parseMcpServersText(
      JSON.stringify({
        mcpServers: {
          noPort: { tcp: { host: "mcp.example.com" } },
          badPort: { tcp: { host: "mcp.example.com", port: 70_000 } },
          both: { tcp: { host: "a", port: 1 }, url: "https://a.example.com" },
          stray: { tcp: { host: "a", port: 1, path: "/x" } },
        },
      }),
    );
    expect(bad.ok).toBe(false);
    const paths = !bad.ok ? bad.problems.map((p) => p.path) : [];
    expect(paths).toEqual(
      expect.arrayContaining(["mcpServers.noPort.tcp.port", "mcpServers.badPort.tcp.port", "mcpServers.both"]),
    );
    expect(paths.some((p) => p.startsWith("mcpServers.stray.tcp"))).toBe(true);
  });

  it("connects to an allowed server, lists its tools and calls one", async () => {
    const { caller, project } = await projectWith({ local: { tcp: { host: allowed.host, port: allowed.port } } });
    const [server] = (await caller.extensions.status({ projectId: project.id })).servers;
    expect(server).toMatchObject({ name: "local", status: "connected", transport: "tcp", tools: ["shout"] });
    const tools = await env.services.extensions!.projectTools.tools(
      project.id,
      await env.services.files.open(project.id),
    );
    const shout = tools.find((t) => t.name === "local__shout")!;
    const run = await (await session()).run(shout, { word: "over tcp" });
    expect(run.error).toBeUndefined();
    expect(run.llm).toBe("OVER TCP!");
  }, 30_000);

  it("refuses loopback the admin did not allow, by address and by name: the internal service sees nothing", async () => {
    const before = internal.connections();
    const { caller, project } = await projectWith({
      direct: { tcp: { host: "127.0.0.1", port: internal.port } },
      named: { tcp: { host: "localhost", port: internal.port } },
      mapped: { tcp: { host: "::ffff:127.0.0.1", port: internal.port } },
      metadata: { tcp: { host: "169.254.169.254", port: 80 } },
    });
    const { servers } = await caller.extensions.status({ projectId: project.id });
    expect(servers).toHaveLength(4);
    for (const server of servers) {
      expect(server.status, server.name).toBe("failed");
      expect(server.error).toMatch(/^refused: .* is not a public address .*TANDEM_MCP_ALLOW_HOSTS=/);
    }
    expect(servers.find((s) => s.name === "direct")!.error).toContain(
      `TANDEM_MCP_ALLOW_HOSTS=127.0.0.1:${internal.port}`,
    );
    expect(internal.connections()).toBe(before);
  }, 30_000);

  it("with the project's network policy off, connects to no TCP server, even an allowed one", async () => {
    const { caller, project } = await projectWith({ local: { tcp: { host: allowed.host, port: allowed.port } } });
    expect((await caller.extensions.status({ projectId: project.id })).servers[0]).toMatchObject({
      status: "connected",
    });
    await caller.network.update({ projectId: project.id, policy: "off", allowHosts: [] });
    await caller.extensions.reconnect({ projectId: project.id, server: "local" });
    const [server] = (await caller.extensions.status({ projectId: project.id })).servers;
    expect(server).toMatchObject({ status: "failed", transport: "tcp" });
    expect(server!.error).toMatch(/^refused: this project's network policy is off/);
  }, 30_000);
});
