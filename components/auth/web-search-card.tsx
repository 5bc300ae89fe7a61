"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  WEB_SEARCH_KINDS,
  WEB_SEARCH_LABELS,
  webSearchBackendSchema,
  type WebSearchKind,
} from "@/lib/web-search-config";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Draft = { kind: WebSearchKind | "env"; url: string; apiKey: string };

/** The web search service behind the agent's web_search tool: the environment's, or one set here. */
export function WebSearchCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.account.webSearch.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useMutation(
    trpc.account.setWebSearch.mutationOptions({
      onSuccess: () => {
        setDraft(null);
        setSaved(true);
        void queryClient.invalidateQueries(trpc.account.webSearch.queryFilter());
      },
    }),
  );
  if (!current.data) return null;
  const { admin, env } = current.data;
  const value: Draft = draft ?? { kind: admin?.kind ?? "env", url: admin?.url ?? "", apiKey: "" };
  const edit = (patch: Partial<Draft>) => (setDraft({ ...value, ...patch }), setSaved(false));
  const candidate =
    value.kind === "env"
      ? null
      : webSearchBackendSchema.safeParse(
          value.kind === "searxng"
            ? { kind: "searxng", url: value.url }
            : { kind: value.kind, apiKey: value.apiKey, ...(value.url ? { url: value.url } : {}) },
        );
  const problem =
    candidate && !candidate.success
      ? candidate.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      : null;
  const inForce = admin ?? env;

  return (
    <section className="card settings-card" data-testid="web-search-card">
      <div className="section-title">
        <h2>Web search</h2>
        <span className="hint" data-testid="web-search-in-force">
          {inForce
            ? `The agent searches with ${WEB_SEARCH_LABELS[inForce.kind]}${admin ? "" : " (from the environment)"}.`
            : "Not configured: the agent has no web_search tool."}
        </span>
      </div>
      <div className="command-fields">
        <label className="field">
          <span>Service</span>
          <select
            className="input"
            data-testid="web-search-kind"
            value={value.kind}
            onChange={(e) => edit({ kind: e.target.value as Draft["kind"] })}
          >
            <option value="env">
              {env ? `The environment's (${WEB_SEARCH_LABELS[env.kind]})` : "The environment's (none)"}
            </option>
            {WEB_SEARCH_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {WEB_SEARCH_LABELS[kind]}
              </option>
            ))}
          </select>
        </label>
        {value.kind === "searxng" && (
          <label className="field">
            <span>SearXNG URL (its JSON format must be enabled)</span>
            <input
              className="input"
              data-testid="web-search-url"
              value={value.url}
              placeholder="http://searx.internal:8080"
              onChange={(e) => edit({ url: e.target.value })}
            />
          </label>
        )}
        {(value.kind === "brave" || value.kind === "tavily") && (
          <label className="field">
            <span>
              API key{admin?.kind === value.kind && admin.hasKey ? " (saved; type a new one to change it)" : ""}
            </span>
            <input
              className="input"
              type="password"
              autoComplete="off"
              data-testid="web-search-key"
              value={value.apiKey}
              onChange={(e) => edit({ apiKey: e.target.value })}
            />
          </label>
        )}
      </div>
      {draft && problem && (
        <div className="error-text" role="alert" data-testid="web-search-problem">
          {problem}
        </div>
      )}
      {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
      <div className="row">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="web-search-save"
          disabled={draft === null || !!problem || save.isPending}
          onClick={() => save.mutate({ backend: candidate?.success ? candidate.data : null })}
        >
          Save
        </button>
        {saved && <span className="hint">Saved. Sessions get it on their next turn.</span>}
      </div>
    </section>
  );
}
