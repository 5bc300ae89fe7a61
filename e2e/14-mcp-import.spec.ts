import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";

// "Import from…" on the MCP card: a pasted gemini-cli settings.json (httpUrl, a stdio server with
// includeTools) is shown as understood, added to the configuration, saved, and the stdio server
// (a dependency-free MCP server in the workspace) connects with only the included tool.

const TINY_SERVER = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const tools = [
  { name: "lookup", description: "Look a word up", inputSchema: { type: "object", properties: { word: { type: "string" } } } },
  { name: "define", description: "Define a word", inputSchema: { type: "object", properties: { word: { type: "string" } } } },
];
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "initialize") send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } } });
  else if (msg.method === "tools/list") send({ id: msg.id, result: { tools } });
  else if (msg.id !== undefined) send({ id: msg.id, result: { content: [{ type: "text", text: "ok" }] } });
});
`;

test("Import from…: a pasted settings.json is understood, added and connected", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Imported");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  await fs.writeFile(
    path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId, "tiny-mcp.cjs"),
    TINY_SERVER,
  );
  await page.getByTestId("project-settings").click();

  await page.getByTestId("mcp-import-open").click();
  const paste = page.getByTestId("mcp-import-text");
  await paste.fill('{ "mcpServers": { "docs": { "httpUrl": "ftp://nope" } } }');
  await expect(page.getByTestId("mcp-import-problems")).toContainText("mcpServers.docs.url");
  await paste.fill(
    JSON.stringify({
      theme: "GitHub",
      mcpServers: {
        words: { command: "node", args: ["tiny-mcp.cjs"], includeTools: ["lookup"] },
        docs: { httpUrl: "https://docs.example.com/mcp", headers: { Authorization: "Bearer x" } },
      },
    }),
  );
  await expect(page.getByTestId("mcp-import-words")).toContainText("stdio");
  await expect(page.getByTestId("mcp-import-words")).toContainText("only lookup");
  await expect(page.getByTestId("mcp-import-docs")).toContainText("streamable HTTP");
  await page.getByTestId("mcp-import").screenshot({ path: screenshotPath("mcp-import") });
  await page.getByTestId("mcp-import-add").click();
  await expect(page.getByTestId("mcp-import")).toHaveCount(0);
  await expect(page.getByTestId("mcp-json")).toHaveValue(/"httpUrl"|"url": "https:\/\/docs.example.com\/mcp"/);

  // Keep only the local server for the connection check.
  const text = JSON.parse(await page.getByTestId("mcp-json").inputValue()) as { mcpServers: Record<string, unknown> };
  expect(text.mcpServers.docs).toEqual({
    type: "http",
    url: "https://docs.example.com/mcp",
    headers: { Authorization: "Bearer x" },
  });
  delete text.mcpServers.docs;
  await page.getByTestId("mcp-json").fill(JSON.stringify(text, null, 2));
  await page.getByTestId("mcp-save").click();
  const words = page.getByTestId("mcp-server-words");
  await expect(words).toHaveAttribute("data-status", "connected", { timeout: 20_000 });
  await expect(words.getByTestId("mcp-server-detail")).toHaveText("Connected · 1 tool");
});
