"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { parseMcpServersText, type ConfigProblem } from "@/lib/mcp-config";
import { McpImport } from "@/components/settings/mcp-import";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

const EXAMPLE = `{
  "mcpServers": {
    "docs": { "command": "npx", "args": ["-y", "some-mcp-server"], "trust": false },
    "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer …" } }
  }
}`;

/** The project's MCP servers: the `mcpServers` JSON, checked as you type, and each server's live connection. */
export function McpServersCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.extensions.settings.queryOptions({ projectId }));
  const [text, setText] = useState<string | null>(null);
  const [serverProblems, setServerProblems] = useState<ConfigProblem[]>([]);
  const [saved, setSaved] = useState(false);
  const [importing, setImporting] = useState(false);
  const value = text ?? settings.data?.mcpServersText ?? "";
  const live = useMemo(() => parseMcpServersText(value), [value]);
  const problems = live.ok ? serverProblems : live.problems;

  const save = useMutation(
    trpc.extensions.updateSettings.mutationOptions({
      onSuccess: (result) => {
        if (!result.ok) return setServerProblems(result.problems);
        setServerProblems([]);
        setSaved(true);
        setText(null);
        void queryClient.invalidateQueries(trpc.extensions.settings.queryFilter());
        void queryClient.invalidateQueries(trpc.extensions.status.queryFilter());
      },
    }),
  );
  useEffect(() => setSaved(false), [text]);

  return (
    <section className="card settings-card" data-testid="mcp-card">
      <div className="section-title">
        <h2>MCP servers</h2>
        <span className="hint">
          Tools appear to the agent as server__tool. Untrusted servers ask before every call.
        </span>
      </div>
      <textarea
        className="json-editor"
        spellCheck={false}
        aria-label="mcpServers JSON"
        aria-invalid={problems.length > 0}
        data-testid="mcp-json"
        value={value}
        placeholder={EXAMPLE}
        readOnly={!canEdit}
        onChange={(e) => setText(e.target.value)}
      />
      {problems.length > 0 && (
        <ul className="problems" data-testid="mcp-problems" role="alert">
          {problems.map((p, i) => (
            <li key={i}>
              <code>{p.path}</code>
              {p.line ? ` (line ${p.line})` : ""}: {p.message}
            </li>
          ))}
        </ul>
      )}
      {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
      {canEdit && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="mcp-save"
            disabled={!live.ok || save.isPending || text === null}
            onClick={() => save.mutate({ projectId, mcpServersText: value })}
          >
            {save.isPending ? "Saving…" : "Save"}
          </button>
          {text !== null && (
            <button type="button" className="btn btn-ghost" onClick={() => (setText(null), setServerProblems([]))}>
              Discard changes
            </button>
          )}
          {!importing && (
            <button type="button" className="btn" data-testid="mcp-import-open" onClick={() => setImporting(true)}>
              Import from…
            </button>
          )}
          {saved && <span className="hint">Saved. Connecting…</span>}
          <span className="spacer" />
          <span className="hint">
            command/args/env/cwd (stdio, sandboxed) or url/headers (http, sse, ws); timeout, trust, includeTools,
            excludeTools, eager
          </span>
        </div>
      )}
      {canEdit && importing && (
        <McpImport
          current={live.ok ? live.servers : null}
          onAdd={(next) => (setText(next), setImporting(false))}
          onClose={() => setImporting(false)}
        />
      )}
      <ServerStatus projectId={projectId} canReconnect={canEdit} />
    </section>
  );
}

function ServerStatus({ projectId, canReconnect }: { projectId: string; canReconnect: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.extensions.status.queryOptions({ projectId }, { refetchInterval: 3_000 }));
  const reconnect = useMutation(
    trpc.extensions.reconnect.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.extensions.status.queryFilter()),
    }),
  );
  if (status.error) return <div className="error-text">{errorMessage(status.error)}</div>;
  const servers = status.data?.servers ?? [];
  if (!status.data) return <p className="hint">Checking servers…</p>;
  if (!servers.length) return <p className="hint">No MCP servers configured.</p>;
  return (
    <ul className="server-list" data-testid="mcp-status">
      {servers.map((s) => (
        <li key={s.name} data-testid={`mcp-server-${s.name}`} data-status={s.status}>
          <span className="status-dot" data-status={s.status} />
          <span className="server-name">{s.name}</span>
          <span className="chip">{s.transport}</span>
          {s.trusted && <span className="chip">trusted</span>}
          {s.eager && <span className="chip">eager</span>}
          <span
            className={s.status === "failed" ? "server-detail failed" : "server-detail"}
            data-testid="mcp-server-detail"
            title={s.tools.join(", ")}
          >
            {s.status === "connected"
              ? `Connected · ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`
              : s.status === "failed"
                ? `Failed: ${s.error}${s.retryAt ? " · retrying" : ""}`
                : s.status === "connecting"
                  ? "Connecting…"
                  : "Closed"}
          </span>
          <span className="spacer" />
          {canReconnect && s.status !== "connecting" && (
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => reconnect.mutate({ projectId, server: s.name })}
              disabled={reconnect.isPending}
            >
              Reconnect
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
