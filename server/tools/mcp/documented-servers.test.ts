import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMcpServersText, type McpServersConfig, type StdioServerConfig } from "@/lib/mcp-config";
import { testSandbox } from "@/server/test/sandbox";
import { useToolSessions } from "@/server/test/tool-session";
import { createMcpServers, sandboxedLauncher } from "./project-servers";

// The integrations docs/agent.md documents as MCP servers (Linear, Notion, Discord, cloud CLIs):
// the file people paste is one the project settings accept as it is. Those need an account and the
// network; the file's `filesystem` entry (the official server, a devDependency here) needs neither,
// so it is started for real through Tandem's MCP client and the launcher of a project's stdio
// servers (here without bubblewrap, which would not see this checkout's node_modules; mcp.test.ts
// does the same with the "everything" server).

const EXAMPLE = path.join(process.cwd(), "docs/examples/mcp-servers.json");

async function documented(): Promise<McpServersConfig> {
  const parsed = parseMcpServersText(await fs.readFile(EXAMPLE, "utf8"));
  expect(parsed).toMatchObject({ ok: true });
  return parsed.ok ? parsed.servers : {};
}

/**
 * A documented `npx -y <package> args…` entry as npx runs it once the package is installed: the
 * package's bin under node (this machine has no network; the package is a devDependency).
 */
function asInstalled(config: StdioServerConfig): StdioServerConfig {
  const [flag, name, ...rest] = config.args ?? [];
  expect([config.command, flag]).toEqual(["npx", "-y"]);
  const dir = path.resolve("node_modules", name!);
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { bin: Record<string, string> };
  return { ...config, command: process.execPath, args: [path.join(dir, Object.values(manifest.bin)[0]!), ...rest] };
}

describe("documented MCP servers", () => {
  const session = useToolSessions();
  const servers = createMcpServers({ fetchPolicy: { allowHosts: [] }, maxBackoffMs: 500 });
  let base: string;
  let root: string;
  beforeAll(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-mcp-docs-")));
    root = path.join(base, "ws");
    await fs.mkdir(path.join(root, "notes"), { recursive: true });
    await fs.writeFile(path.join(root, "notes/hello.md"), "hello from the workspace\n");
    await fs.writeFile(path.join(base, "outside.txt"), "not the project's\n");
  });
  afterAll(async () => {
    await servers.dispose();
    await fs.rm(base, { recursive: true, force: true });
  });

  it("docs/examples/mcp-servers.json parses as project settings take it", async () => {
    expect(Object.keys(await documented())).toEqual([
      "linear",
      "notion",
      "discord",
      "gcloud",
      "azure",
      "kubernetes",
      "filesystem",
    ]);
  });

  it("the documented filesystem server starts, lists its tools and answers inside the workspace only", async () => {
    const config = asInstalled((await documented()).filesystem as StdioServerConfig);
    await servers.sync("docs", { filesystem: config }, sandboxedLauncher(root, testSandbox("none")));
    const tools = await servers.tools("docs", 20_000);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(["filesystem__list_directory", "filesystem__read_text_file"]),
    );
    expect(servers.status("docs")).toMatchObject([{ name: "filesystem", status: "connected", transport: "stdio" }]);

    const run = async (name: string, input: object) => (await session()).run(byName.get(name)!, input);
    expect(String((await run("filesystem__list_directory", { path: "." })).llm)).toContain("[DIR] notes");
    expect(String((await run("filesystem__read_text_file", { path: "notes/hello.md" })).llm)).toContain(
      "hello from the workspace",
    );
    const outside = await run("filesystem__read_text_file", { path: path.join(base, "outside.txt") });
    expect(String(outside.llm)).not.toContain("not the project's");
    expect(String(outside.llm)).toMatch(/Access denied|outside/i);
  }, 60_000);
});
