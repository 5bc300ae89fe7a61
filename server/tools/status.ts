import { z } from "zod";
import type { NetworkPolicy } from "@/lib/egress-policy";
import type { SandboxMode } from "@/server/sandbox/launcher";
import { defineTool } from "./define-tool";
import type { McpServerStatus } from "./mcp/project-servers";
import { ok } from "./result";

// status: what is configured, connected and in force for this session, as the runtime sees it
// when the call runs (server/agent/turn-setup.ts gathers it): the model, the approval mode and
// rules, the sandbox and network policy, the MCP servers and their state, the tools on and off.

export type SessionReport = {
  model: string;
  approvalMode: string;
  allowRules: number;
  denyRules: number;
  stepLimit: number;
  sandbox: SandboxMode;
  network: NetworkPolicy;
  /** The tools this session has; the deferred ones' schemas wait behind tool_search. */
  tools: string[];
  deferred: string[];
  /** Built-in tools the project's admins turned off. */
  switchedOff: string[];
  webSearch: string | null;
  languageServers: boolean;
  /** The project's MCP servers; null when this server runs none. */
  mcpServers: McpServerStatus[] | null;
};

const DESCRIPTION = `Reports what is configured and in force for this session: the model, the approval mode and rules, the step limit, the sandbox and the project's network policy, each MCP server and whether it is connected (with its tools or its error), web search, language servers, and which tools are on, deferred or switched off. Use it when unsure what you can do or why something is refused.`;

export function statusTool(report: () => Promise<SessionReport>) {
  return defineTool({
    name: "status",
    onDemand: "always",
    kind: "read",
    description: DESCRIPTION,
    input: z.object({}),
    describe: () => "Show the session's status",
    async execute() {
      const r = await report();
      const network =
        r.network.policy === "allow-list"
          ? `allow-list (${r.network.allowHosts.join(", ") || "no hosts"})`
          : r.network.policy;
      const servers =
        r.mcpServers === null
          ? ["- (MCP is not available on this server)"]
          : r.mcpServers.length === 0
            ? ["- none configured"]
            : r.mcpServers.map(
                (s) =>
                  `- ${s.name} (${s.transport}${s.trusted ? ", trusted" : ""}): ${s.status}` +
                  (s.status === "connected" ? `, tools: ${s.tools.join(", ") || "none"}` : "") +
                  (s.error ? `: ${s.error}` : ""),
              );
      const text = [
        "## Session",
        `- model: ${r.model}`,
        `- approval mode: ${r.approvalMode} (${r.allowRules} allow rule(s), ${r.denyRules} deny rule(s))`,
        `- step limit: ${r.stepLimit}`,
        `- sandbox: ${r.sandbox}`,
        `- network policy: ${network}`,
        `- web search: ${r.webSearch ?? "not configured"}`,
        `- language servers: ${r.languageServers ? "running" : "none"}`,
        "## MCP servers",
        ...servers,
        "## Tools",
        `- on (${r.tools.length}): ${r.tools.join(", ")}`,
        ...(r.deferred.length ? [`- deferred behind tool_search: ${r.deferred.join(", ")}`] : []),
        `- switched off: ${r.switchedOff.join(", ") || "none"}`,
      ].join("\n");
      return ok(
        text,
        { kind: "markdown", text },
        {
          model: r.model,
          approvalMode: r.approvalMode,
          network: r.network.policy,
          mcpConnected: r.mcpServers?.filter((s) => s.status === "connected").length ?? 0,
          tools: r.tools.length,
        },
      );
    },
  });
}
