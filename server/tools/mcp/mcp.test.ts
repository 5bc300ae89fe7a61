import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolSet } from "../registry";
import { useToolSessions } from "@/server/test/tool-session";
import { parseMcpServersText, type McpServersConfig } from "@/lib/mcp-config";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { testSandbox } from "@/server/test/sandbox";
import { EVERYTHING, startEverythingServer } from "@/server/test/everything-mcp-server";
import { createMcpServers, sandboxedLauncher } from "./project-servers";

// Against the real MCP "everything" server from the npm registry: over stdio (started by the
// connection, in the sandbox launcher) and over streamable HTTP (started here).

const session = useToolSessions();
let root: string;
// The test servers listen on loopback, which an admin allows with TANDEM_MCP_ALLOW_HOSTS.
const servers = createMcpServers({ fetchPolicy: { allowHosts: ["127.0.0.1"] }, maxBackoffMs: 500 });
const launch = () => sandboxedLauncher(root, testSandbox("none"));
let http: Awaited<ReturnType<typeof startEverythingServer>>;
let httpUrl: string;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-mcp-")));
  http = await startEverythingServer("streamableHttp");
  httpUrl = http.url;
}, 30_000);

afterAll(async () => {
  await servers.dispose();
  http?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

describe("mcpServers configuration", () => {
  it("accepts the shape other agent CLIs use and names every problem", () => {
    const good = parseMcpServersText(
      JSON.stringify({
        mcpServers: {
          docs: { command: "node", args: ["x.js"], env: { A: "1" }, trust: true },
          remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
        },
      }),
    );
    expect(good.ok && Object.keys(good.servers)).toEqual(["docs", "remote"]);
    const malformed = parseMcpServersText('{\n  "mcpServers": {\n    "docs": { "command": "node", }\n  }\n}');
    expect(malformed).toMatchObject({ ok: false, problems: [{ path: "(json)", line: 3 }] });
    const bad = parseMcpServersText(
      JSON.stringify({
        mcpServers: {
          "a b": { command: "x" },
          none: {},
          web: { url: "ftp://x" },
          t: { command: "x", timeout: "soon" },
        },
      }),
    );
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual([
      "mcpServers.a b",
      "mcpServers.none",
      "mcpServers.web.url",
      "mcpServers.t.timeout",
    ]);
  });
});

describe("MCP servers", () => {
  it("connects to a stdio server, lists its tools as server__tool with their schemas, and calls one", async () => {
    await servers.sync(
      "p1",
      { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], excludeTools: ["get-env"] } },
      launch(),
    );
    const tools = await servers.tools("p1");
    const names = tools.map((t) => t.name);
    expect(names).toContain("everything__echo");
    expect(names).not.toContain("everything__get-env");
    const echo = tools.find((t) => t.name === "everything__echo")!;
    expect(echo.description).toContain("Echoes back the input string");
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(echo.approval).toBe("always"); // not trusted
    const run = await (await session()).run(echo, { message: "hello" });
    expect(run.llm).toBe("Echo: hello");
    expect(servers.status("p1")).toMatchObject([{ name: "everything", status: "connected", transport: "stdio" }]);

    // Structured content is the result: JSON for the model (json output) and for the tool card.
    const structured = tools.find((t) => t.name === "everything__get-structured-content")!;
    const weather = await (await session()).run(structured, { location: "Chicago" });
    expect(weather.json).toBe(true);
    expect(weather.display).toEqual({
      kind: "json",
      value: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
    });
    expect(JSON.parse(weather.llm as string)).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
  }, 30_000);

  it("connects over streamable HTTP; a trusted server's tools follow the policy", async () => {
    await servers.sync("p2", { remote: { url: httpUrl, trust: true } }, launch());
    const tools = buildToolSet({ tools: [], extraTools: await servers.tools("p2") });
    expect(tools["remote__get-sum"]!.approval).toBeUndefined();
    expect(tools["remote__get-sum"]!.kind).toBe("read"); // the server marks it read-only
    const run = await (await session()).run(tools["remote__get-sum"]!, { a: 2, b: 40 });
    expect(String(run.llm)).toContain("42");
    expect(servers.status("p2")[0]).toMatchObject({ status: "connected", transport: "streamable-http" });
  }, 30_000);

  it("reports a missing command and a hanging server as failed, with the reason, without throwing", async () => {
    const config: McpServersConfig = {
      missing: { command: "no-such-mcp-server-xyz" },
      hangs: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], timeout: 500 },
    };
    await servers.sync("p3", config, launch());
    expect(await servers.tools("p3", 3_000)).toEqual([]);
    // Failed servers retry with backoff, so catch the missing one between attempts (a loaded
    // machine can still be inside an attempt when tools() gives up).
    const until = Date.now() + 15_000;
    const missing = () => servers.status("p3").find((s) => s.name === "missing");
    while (missing()?.status !== "failed" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const status = Object.fromEntries(servers.status("p3").map((s) => [s.name, s]));
    expect(status.missing).toMatchObject({
      status: "failed",
      error: expect.stringContaining("command not found: no-such-mcp-server-xyz"),
    });
    expect(status.hangs!.error ?? status.hangs!.status).toMatch(/handshake|connecting/);
    await servers.closeProject("p3");
  }, 30_000);

  it("says what a crashed server's error was, not the tail of its stack trace", async () => {
    const crash = 'function loadConfig() { throw new Error("bad config: MCP_API_URL is not set"); }\nloadConfig();';
    await servers.sync("p6", { crashes: { command: process.execPath, args: ["-e", crash] } }, launch());
    const until = Date.now() + 15_000;
    const crashes = () => servers.status("p6")[0];
    while (crashes()?.status !== "failed" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(crashes()).toMatchObject({
      status: "failed",
      error: "the server exited: Error: bad config: MCP_API_URL is not set",
    });
    await servers.closeProject("p6");
  }, 30_000);

  it("a server that dies is marked failed and comes back by itself", async () => {
    const pidFile = path.join(root, "pid");
    await servers.sync(
      "p4",
      { dies: { command: "bash", args: ["-c", `echo $$ > ${pidFile}; exec ${process.execPath} ${EVERYTHING} stdio`] } },
      launch(),
    );
    await servers.settled("p4");
    expect(servers.status("p4")[0]!.status).toBe("connected");
    process.kill(Number(await fs.readFile(pidFile, "utf8")), "SIGKILL");
    const until = Date.now() + 5_000;
    while (servers.status("p4")[0]!.status === "connected" && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(servers.status("p4")[0]).toMatchObject({ status: expect.stringMatching(/failed|connecting/) });
    const back = Date.now() + 15_000;
    while (servers.status("p4")[0]!.status !== "connected" && Date.now() < back)
      await new Promise((r) => setTimeout(r, 50));
    expect(servers.status("p4")[0]!.status).toBe("connected");
    expect((await servers.tools("p4")).length).toBeGreaterThan(5);
  }, 30_000);
});

// A dependency-free MCP server written into the workspace: inside bubblewrap only the workspace
// and the system are visible, so it reports where it runs.
const TINY_SERVER = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "initialize") send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } } });
  else if (msg.method === "tools/list") send({ id: msg.id, result: { tools: [{ name: "whereami", description: "Where the server runs", inputSchema: { type: "object", properties: {} } }] } });
  else if (msg.method === "tools/call") send({ id: msg.id, result: { content: [{ type: "text", text: JSON.stringify({ home: process.env.HOME, user: process.env.USER, secret: process.env.SECRET_TOKEN ?? null, canSeeRepo: require("node:fs").existsSync(${JSON.stringify(path.resolve("package.json"))}) }) }] } });
  else if (msg.id !== undefined) send({ id: msg.id, result: {} });
});`;

describeSandboxed("MCP stdio servers in the sandbox", () => {
  it("run under bubblewrap: sandbox home, nothing of the server's files, only the env they were given", async () => {
    const sandboxRoot = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-mcp-bwrap-")));
    await fs.writeFile(path.join(sandboxRoot, "tiny.cjs"), TINY_SERVER);
    const sandboxed = createMcpServers({ fetchPolicy: { allowHosts: [] } });
    try {
      await sandboxed.sync(
        "p5",
        { tiny: { command: "node", args: ["tiny.cjs"], env: { SECRET_TOKEN: "given-on-purpose" } } },
        sandboxedLauncher(sandboxRoot, testSandbox("bwrap")),
      );
      const [tool] = await sandboxed.tools("p5");
      expect(sandboxed.status("p5")[0]).toMatchObject({ status: "connected" });
      const run = await (await session()).run(tool!, {});
      expect(JSON.parse(String(run.llm))).toEqual({
        home: "/home/tandem",
        user: "tandem",
        secret: "given-on-purpose",
        canSeeRepo: false,
      });
    } finally {
      await sandboxed.dispose();
      await fs.rm(sandboxRoot, { recursive: true, force: true });
    }
  }, 30_000);
});
