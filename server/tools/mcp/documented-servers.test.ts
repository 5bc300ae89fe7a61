import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseMcpServersText } from "@/lib/mcp-config";

// The integrations docs/agent.md documents as MCP servers (Linear, Notion, Discord, cloud CLIs):
// the file people paste is one the project settings accept as it is. Connecting a documented
// shape to a real server on loopback is server/agent/status-tool.test.ts (TCP) and
// server/agent/extensions.test.ts (stdio, in the sandbox, through a turn).

describe("documented MCP servers", () => {
  it("docs/examples/mcp-servers.json parses as project settings take it", async () => {
    const text = await readFile(path.join(process.cwd(), "docs/examples/mcp-servers.json"), "utf8");
    const parsed = parseMcpServersText(text);
    expect(parsed).toMatchObject({ ok: true });
    if (!parsed.ok) return;
    expect(Object.keys(parsed.servers)).toEqual(["linear", "notion", "discord", "gcloud", "azure", "kubernetes"]);
  });
});
