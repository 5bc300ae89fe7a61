import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { startTcpMcpServer } from "@/server/test/tcp-mcp-server";

// The status tool through the running server: what a project's admins configured (approval mode
// and rules, switched-off tools, the network policy, an MCP server) is what the agent reads back,
// with the MCP server's live state.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let mcp: Awaited<ReturnType<typeof startTcpMcpServer>>;
beforeAll(async () => {
  mcp = await startTcpMcpServer();
  h = await createAgentHarness({ extensions: { mcpAllowHosts: [`127.0.0.1:${mcp.port}`] } });
}, 60_000);
afterAll(async () => {
  await h?.dispose();
  await mcp?.stop();
});

describe("status", () => {
  it("reports the model, the approval policy, the network policy, connected MCP servers and the tools in force", async () => {
    const projectId = h.project.id;
    await h.caller.agent.updateSettings({
      projectId,
      approvalMode: "auto-edit",
      allowRules: [],
      denyRules: [{ tool: "shell", commandPrefix: "rm" }],
      excludeTools: ["web_fetch"],
    });
    await h.caller.network.update({ projectId, policy: "allow-list", allowHosts: ["registry.npmjs.org"] });
    await h.caller.extensions.updateSettings({
      projectId,
      mcpServersText: JSON.stringify({
        mcpServers: {
          local: { tcp: { host: "127.0.0.1", port: mcp.port } },
          gone: { tcp: { host: "127.0.0.1", port: 1 } },
        },
      }),
    });
    await h.caller.extensions.status({ projectId });
    const session = await h.newSession({
      replies: [
        { match: "what is in force", toolCalls: [{ name: "status", arguments: {} }] },
        { match: "## Session", text: "Reported." },
      ],
    });
    const events = await h.send(session.id, "what is in force?");
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "status", ok: true });
    const model = (await h.caller.session.get({ sessionId: session.id })).model;
    expect(result.llm).toContain(`- model: ${model}`);
    expect(result.llm).toContain("- approval mode: auto-edit (0 allow rule(s), 1 deny rule(s))");
    // The policy in force for the project's commands: the allow-list where the egress proxy runs
    // (bubblewrap), off where commands get no network at all.
    const inForce = await h.env.services.sandbox.network(projectId);
    expect(result.llm).toContain(
      inForce.policy === "off" ? "- network policy: off" : "- network policy: allow-list (registry.npmjs.org)",
    );
    expect(result.llm).toContain("- local (tcp): connected, tools: shout");
    expect(result.llm).toMatch(/- gone \(tcp\): failed: refused: 127\.0\.0\.1 is not a public address/);
    expect(result.llm).toMatch(/- on \(\d+\): .*\bstatus\b.*\blocal__shout\b/);
    expect(result.llm).toContain("- switched off: web_fetch");
    expect(result.display).toMatchObject({ kind: "markdown" });
  }, 60_000);

  it("reports the project's tool and model metrics from the session log: calls, errors, times, sizes, tokens", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "metrics",
          toolCalls: [{ name: "memory", arguments: { action: "retrieve", key: "nothing", scope: "user" } }],
        },
        { match: "NOT_FOUND", toolCalls: [{ name: "status", arguments: { telemetry_hours: 2 } }] },
        { match: "## Telemetry", text: "Reported." },
      ],
    });
    const events = await h.send(session.id, "metrics please");
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "status", ok: true });
    expect(result.llm).toContain("## Telemetry (this project, last 2 h)");
    expect(result.llm).toMatch(
      /- memory: 1 call\(s\), 1 error\(s\) \(mostly NOT_FOUND\), avg \d+ ms, p95 \d+ ms, \d+ chars of results/,
    );
    const model = (await h.caller.session.get({ sessionId: session.id })).model;
    expect(result.llm).toMatch(
      new RegExp(`- ${model.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: [1-9]\\d* step\\(s\\), \\d+ input tokens`),
    );
  }, 60_000);
});
