"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { EnvironmentRun } from "@/components/settings/environment-run";

type Draft = { setupScript: string; node: string; python: string };

/**
 * The project's environment: its setup script and toolchain versions (project admins edit them;
 * empty means the repository's own `.tandem/setup.sh`, `.nvmrc` or `.python-version`), what is on
 * the PATH now, and the last setup run with "Rebuild environment".
 */
export function EnvironmentCard({
  projectId,
  canEdit,
  canRun,
}: {
  projectId: string;
  canEdit: boolean;
  canRun: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Read afresh on opening: a .tandem/setup.sh or .nvmrc made a moment ago in a terminal counts.
  const status = useQuery(trpc.environment.get.queryOptions({ projectId }, { refetchOnMount: "always" }));
  const [draft, setDraft] = useState<Draft | null>(null);
  const saved = status.data?.settings;
  const current: Draft = draft ?? {
    setupScript: saved?.setupScript ?? "",
    node: saved?.nodeVersion ?? "",
    python: saved?.pythonVersion ?? "",
  };
  const save = useMutation(
    trpc.environment.save.mutationOptions({
      onSuccess: () => {
        setDraft(null);
        void queryClient.invalidateQueries(trpc.environment.get.queryFilter({ projectId }));
      },
    }),
  );
  const toolchains = status.data?.toolchains ?? [];
  return (
    <section className="card settings-card" data-testid="environment-card">
      <div className="section-title">
        <h2>Environment</h2>
        <span className="hint">
          The setup script runs in the project&apos;s sandbox after a clone and on Rebuild, with the project&apos;s
          network policy and nobody&apos;s credentials. Toolchains are installed once per version and come first on the
          PATH of terminals, the agent&apos;s shell and MCP servers.
        </span>
      </div>
      {status.error && <div className="error-text">{errorMessage(status.error)}</div>}
      <label className="field">
        <span>
          Setup script (bash, stops at the first failing command; empty: the repository&apos;s .tandem/setup.sh
          {status.data?.repositoryScript ? ", which this project has" : ", which this project does not have"})
        </span>
        <textarea
          className="input setup-script"
          rows={6}
          spellCheck={false}
          placeholder={"npm ci\npip install -r requirements.txt"}
          data-testid="environment-script"
          value={current.setupScript}
          readOnly={!canEdit}
          onChange={(e) => setDraft({ ...current, setupScript: e.target.value })}
        />
      </label>
      <div className="command-fields">
        <label className="field">
          <span>Node version (empty: .nvmrc or .node-version)</span>
          <input
            className="input"
            placeholder="22.12.0"
            data-testid="environment-node"
            value={current.node}
            readOnly={!canEdit}
            onChange={(e) => setDraft({ ...current, node: e.target.value })}
          />
        </label>
        <label className="field">
          <span>Python version (empty: .python-version; the server&apos;s own Pythons only)</span>
          <input
            className="input"
            placeholder="3.11"
            data-testid="environment-python"
            value={current.python}
            readOnly={!canEdit}
            onChange={(e) => setDraft({ ...current, python: e.target.value })}
          />
        </label>
      </div>
      {save.error && (
        <div className="error-text" role="alert">
          {errorMessage(save.error)}
        </div>
      )}
      {canEdit && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="environment-save"
            disabled={draft === null || save.isPending}
            onClick={() =>
              save.mutate({ projectId, setupScript: current.setupScript, node: current.node, python: current.python })
            }
          >
            Save
          </button>
        </div>
      )}
      {!canEdit && <small className="hint">The team&apos;s owners and admins set these.</small>}
      {toolchains.length > 0 && (
        <ul className="item-list" data-testid="environment-toolchains">
          {toolchains.map((t) => (
            <li key={t.name}>
              <span className="status-dot" data-status={t.version ? "connected" : "failed"} />
              <span className="server-name">
                {t.name} {t.version ?? t.spec}
              </span>
              <span className={t.version ? "server-detail" : "server-detail failed"}>
                {t.version
                  ? `from ${t.from === "settings" ? "the settings" : t.from}, first on the PATH`
                  : `from ${t.from === "settings" ? "the settings" : t.from}: ${t.problem}`}
              </span>
            </li>
          ))}
        </ul>
      )}
      <EnvironmentRun projectId={projectId} canRun={canRun} unsaved={draft !== null || save.isPending} />
    </section>
  );
}
