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
  /** The project's tool and model metrics over the window asked for; null when this server keeps none. */
  telemetry: ProjectTelemetry | null;
};

/** What the session log says of the project's tool calls and model steps since `since` (server/db/repositories/telemetry.ts). */
export type ProjectTelemetry = {
  since: Date;
  tools: {
    tool: string;
    calls: number;
    errors: number;
    topError: string | null;
    avgMs: number;
    p95Ms: number;
    resultChars: number;
  }[];
  models: {
    model: string;
    steps: number;
    inputTokens: number;
    outputTokens: number;
    cachedTokens: number;
    retries: number;
    errors: number;
  }[];
};

const DESCRIPTION = `Reports what is configured and in force for this session: the model, the approval mode and rules, the step limit, the sandbox and the project's network policy, each MCP server and whether it is connected (with its tools or its error), web search, language servers, which tools are on, deferred or switched off, and the project's tool and model metrics (calls, errors, times, result sizes, tokens, cache hits) over the last telemetry_hours (default 24). Use it when unsure what you can do, why something is refused, or which tools fail or are slow.`;

export function statusTool(report: (input: { telemetryHours: number }) => Promise<SessionReport>) {
  return defineTool({
    name: "status",
    onDemand: "always",
    kind: "read",
    description: DESCRIPTION,
    input: z.object({
      telemetry_hours: z
        .number()
        .int()
        .min(1)
        .max(24 * 90)
        .optional(),
    }),
    describe: () => "Show the session's status",
    async execute(i) {
      const r = await report({ telemetryHours: i.telemetry_hours ?? 24 });
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
        ...(r.telemetry ? telemetryLines(r.telemetry, i.telemetry_hours ?? 24) : []),
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

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
const count = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(Math.round(n)));

function telemetryLines(t: ProjectTelemetry, hours: number): string[] {
  const tools = t.tools.map(
    (x) =>
      `- ${x.tool}: ${x.calls} call(s), ${x.errors} error(s)${x.topError ? ` (mostly ${x.topError})` : ""}, avg ${ms(x.avgMs)}, p95 ${ms(x.p95Ms)}, ${count(x.resultChars)} chars of results`,
  );
  const models = t.models.map((m) => {
    const hit = m.inputTokens > 0 ? ` (${Math.round((100 * m.cachedTokens) / m.inputTokens)}% cache hits)` : "";
    return `- ${m.model}: ${m.steps} step(s), ${count(m.inputTokens)} input tokens, ${count(m.cachedTokens)} cached${hit}, ${count(m.outputTokens)} output, ${m.retries} retr${m.retries === 1 ? "y" : "ies"}, ${m.errors} error(s)`;
  });
  return [
    `## Telemetry (this project, last ${hours} h)`,
    ...(tools.length ? tools : ["- no tool calls"]),
    ...(models.length ? models : ["- no model steps"]),
  ];
}
