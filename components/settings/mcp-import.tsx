"use client";

import { useMemo, useState } from "react";
import {
  formatMcpServers,
  isStdio,
  isTcp,
  isWebSocketUrl,
  remoteHostOf,
  parseMcpServersText,
  type McpServerConfig,
  type McpServersConfig,
} from "@/lib/mcp-config";

// "Import from…": paste another tool's MCP file (gemini-cli's settings.json, Claude Code's
// .mcp.json, Cursor's or VS Code's mcp.json), see what was understood, and add it to the editor.

function transportOf(config: McpServerConfig): string {
  if (isStdio(config)) return "stdio";
  if (isTcp(config)) return "TCP";
  if (isWebSocketUrl(config.url)) return "WebSocket";
  if (config.type === "sse") return "SSE";
  if (config.type === "http" || config.type === "streamable-http") return "streamable HTTP";
  return "streamable HTTP, else SSE";
}

export function McpImport({
  current,
  onAdd,
  onClose,
}: {
  current: McpServersConfig | null;
  onAdd(text: string): void;
  onClose(): void;
}) {
  const [text, setText] = useState("");
  const parsed = useMemo(() => (text.trim() ? parseMcpServersText(text) : null), [text]);
  const servers = parsed?.ok ? Object.entries(parsed.servers) : [];

  return (
    <div className="mcp-import" data-testid="mcp-import">
      <label className="field">
        <span>Paste a settings.json (gemini-cli), .mcp.json (Claude Code) or mcp.json (Cursor, VS Code)</span>
        <textarea
          className="json-editor mcp-import-text"
          spellCheck={false}
          data-testid="mcp-import-text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          autoFocus
        />
      </label>
      {parsed && !parsed.ok && (
        <ul className="problems" role="alert" data-testid="mcp-import-problems">
          {parsed.problems.map((p, i) => (
            <li key={i}>
              <code>{p.path}</code>
              {p.line ? ` (line ${p.line})` : ""}: {p.message}
            </li>
          ))}
        </ul>
      )}
      {parsed?.ok && (
        <ul className="server-list" data-testid="mcp-import-understood">
          {servers.length === 0 && <li className="hint">No servers in it.</li>}
          {servers.map(([name, config]) => (
            <li key={name} data-testid={`mcp-import-${name}`}>
              <span className="server-name">{name}</span>
              <span className="chip">{transportOf(config)}</span>
              {current && name in current && <span className="chip">replaces the one named so</span>}
              <span className="server-detail">
                {isStdio(config)
                  ? [config.command, ...(config.args ?? [])].join(" ")
                  : isTcp(config)
                    ? `tcp://${remoteHostOf(config)}`
                    : config.url}
                {config.includeTools ? ` · only ${config.includeTools.join(", ")}` : ""}
                {config.excludeTools ? ` · not ${config.excludeTools.join(", ")}` : ""}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="mcp-import-add"
          disabled={!parsed?.ok || servers.length === 0 || current === null}
          onClick={() => parsed?.ok && onAdd(formatMcpServers({ ...(current ?? {}), ...parsed.servers }))}
        >
          Add {servers.length || ""} server{servers.length === 1 ? "" : "s"} to the configuration
        </button>
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          Cancel
        </button>
        {current === null && <span className="hint">Fix the configuration above first.</span>}
      </div>
    </div>
  );
}
