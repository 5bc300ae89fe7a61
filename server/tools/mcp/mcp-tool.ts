import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, type LlmPart, type Tool } from "../define-tool";
import { failure, ok, okJson, ToolFailure } from "../result";
import type { McpServerConfig } from "@/lib/mcp-config";
import { McpUnavailableError, type McpToolInfo } from "./connection";

// An MCP server's tool as a registry tool: named `<server>__<tool>`, with the server's
// description and JSON schema. An untrusted server's tools ask for every call; a trusted
// server's follow the project policy by kind (read when the server marks the tool read-only).

/** Providers accept ^[A-Za-z0-9_-]{1,64}$ as a tool name. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

export type McpCaller = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult>;

export function mcpTool(server: string, config: McpServerConfig, info: McpToolInfo, call: McpCaller): Tool {
  const name = mcpToolName(server, info.name);
  const description = `${info.description?.trim() || info.title || `The ${info.name} tool`} (MCP server "${server}")`;
  return defineTool({
    name,
    kind: info.annotations?.readOnlyHint ? "read" : "execute",
    description,
    input: z.record(z.string(), z.unknown()),
    inputSchema: info.inputSchema,
    deferrable: !config.eager,
    ...(config.trust ? {} : { approval: "always" as const }),
    describe: (input) => `${server}: ${info.title ?? info.name}${summarize(input)}`,
    async execute(input, ctx) {
      let result: CallToolResult;
      try {
        result = await call(info.name, input, ctx.signal);
      } catch (error) {
        if (error instanceof McpUnavailableError)
          throw new ToolFailure("UNAVAILABLE", `${error.message}. Try again later or use another tool.`);
        if (ctx.signal.aborted) throw error;
        const message = (error as Error).message ?? String(error);
        if (/timed out|timeout/i.test(message))
          throw new ToolFailure("TIMEOUT", `${name} did not answer in time: ${message}`);
        throw new ToolFailure("INTERNAL", `${name} failed: ${message}`);
      }
      const parts = contentParts(result);
      const text = parts
        .filter((p): p is Extract<LlmPart, { type: "text" }> => p.type === "text")
        .map((p) => p.text)
        .join("\n");
      if (result.isError) return failure("INTERNAL", `${name} reported an error: ${text || "(no message)"}`);
      // Structured content is the result itself (the text beside it is its serialisation, by the spec).
      if (result.structuredContent && !parts.some((p) => p.type === "image"))
        return okJson(result.structuredContent, { server, tool: info.name });
      const llm = parts.some((p) => p.type === "image") ? parts : text || "(the tool returned no content)";
      return ok(llm, { kind: "text", text: text || "(no text output)" }, { server, tool: info.name });
    },
  });
}

function summarize(input: Record<string, unknown>): string {
  const first = Object.values(input).find((v) => typeof v === "string" || typeof v === "number");
  return first === undefined ? "" : ` ${String(first).slice(0, 60)}`;
}

function contentParts(result: CallToolResult): LlmPart[] {
  const parts: LlmPart[] = [];
  for (const item of result.content ?? []) {
    if (item.type === "text") parts.push({ type: "text", text: item.text });
    else if (item.type === "image") parts.push({ type: "image", data: item.data, mediaType: item.mimeType });
    else if (item.type === "audio")
      parts.push({ type: "text", text: `[audio ${item.mimeType}, ${item.data.length} base64 chars]` });
    else if (item.type === "resource") {
      const r = item.resource as { uri: string; text?: string; mimeType?: string };
      parts.push({
        type: "text",
        text:
          r.text !== undefined ? `[resource ${r.uri}]\n${r.text}` : `[resource ${r.uri} (${r.mimeType ?? "binary"})]`,
      });
    } else if (item.type === "resource_link")
      parts.push({ type: "text", text: `[resource link ${item.uri}${item.name ? ` "${item.name}"` : ""}]` });
  }
  if (!parts.length && result.structuredContent)
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  return parts;
}
