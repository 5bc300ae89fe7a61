import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";

// The project settings page: the MCP servers JSON is checked as it is typed, a stdio server
// (a dependency-free MCP server in the workspace, run in the server's sandbox) shows connected
// with its tool count, a command that does not exist shows failed with the reason, and a
// workflow appears with its Run button.

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

const WORKFLOW = `description: Lint and summarize
inputs:
  target: { description: Folder to check, default: src }
steps:
  - id: lint
    run: echo linting {{ inputs.target }}
  - parallel:
      - id: a
        run: echo a
      - id: b
        run: echo b
`;

test("MCP servers: inline validation, connected stdio server with its tool count, failed command", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Extensible");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.writeFile(path.join(workspace, "tiny-mcp.cjs"), TINY_SERVER);
  await fs.mkdir(path.join(workspace, ".tandem/workflows"), { recursive: true });
  await fs.writeFile(path.join(workspace, ".tandem/workflows/check.yaml"), WORKFLOW);

  await page.getByTestId("project-settings").click();
  await expect(page).toHaveURL(new RegExp(`/p/${projectId}/settings$`));
  await expect(page.getByRole("heading", { name: "Project settings" })).toBeVisible();
  const editor = page.getByTestId("mcp-json");

  // Malformed JSON: an inline error with its line, and Save is off.
  await editor.fill('{\n  "mcpServers": {\n    "tiny": { "command": "node", }\n  }\n}');
  await expect(page.getByTestId("mcp-problems")).toContainText("Malformed JSON");
  await expect(page.getByTestId("mcp-problems")).toContainText("line 3");
  await expect(page.getByTestId("mcp-save")).toBeDisabled();
  await page.screenshot({ path: screenshotPath("settings-invalid-json") });

  // Valid JSON but a bad field: named by its path.
  await editor.fill(JSON.stringify({ mcpServers: { web: { url: "ftp://example.com" } } }, null, 2));
  await expect(page.getByTestId("mcp-problems")).toContainText("mcpServers.web.url");

  await editor.fill(
    JSON.stringify(
      { mcpServers: { tiny: { command: "node", args: ["tiny-mcp.cjs"] }, broken: { command: "no-such-mcp-command" } } },
      null,
      2,
    ),
  );
  await expect(page.getByTestId("mcp-problems")).toHaveCount(0);
  await page.getByTestId("mcp-save").click();

  const tiny = page.getByTestId("mcp-server-tiny");
  await expect(tiny).toHaveAttribute("data-status", "connected", { timeout: 20_000 });
  await expect(tiny.getByTestId("mcp-server-detail")).toHaveText("Connected · 2 tools");
  const broken = page.getByTestId("mcp-server-broken");
  await expect(broken).toHaveAttribute("data-status", /failed|connecting/);
  await expect(broken.getByTestId("mcp-server-detail")).toContainText("command not found: no-such-mcp-command", {
    timeout: 20_000,
  });

  await expect(page.getByTestId("workflow-check")).toContainText("Lint and summarize");
  await expect(page.getByTestId("workflow-check").getByRole("button", { name: "Run" })).toBeEnabled();
  await page.screenshot({ path: screenshotPath("settings-mcp-connected"), fullPage: true });

  // The IDE is one click away.
  await page.getByTestId("back-to-project").click();
  await expect(page.getByTestId("ide")).toBeVisible();
});
