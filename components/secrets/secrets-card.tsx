"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { SECRET_MIN_LENGTH, secretNameProblem } from "@/lib/secrets";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** Whose secrets: a project's (its admins manage them), a team's (its owners and admins) or the person's own. */
export type SecretsScope =
  | { kind: "project"; projectId: string; manage: boolean }
  | { kind: "team"; teamId: string; manage: boolean }
  | { kind: "person" };

const TEXT: Record<SecretsScope["kind"], { title: string; hint: string }> = {
  project: {
    title: "Secrets",
    hint: "Environment variables for this project's terminals, the agent's shell, MCP servers, discovery commands and setup script. Project admins manage them.",
  },
  team: {
    title: "Team secrets",
    hint: "Environment variables for every project of this team. A project's own secret of the same name wins. Owners and admins manage them.",
  },
  person: {
    title: "Your secrets",
    hint: "Environment variables for your own terminals and the agent sessions you start (while only you write in them), in every project. Yours win over a project's or team's of the same name.",
  },
};

/**
 * The secrets of one scope, listed by name. A value goes in once and is never shown again: to
 * change one, set it again under the same name. The agent uses a secret by name and sees
 * `[secret NAME]` wherever its value would appear (docs/security.md#secrets).
 */
export function SecretsCard({ scope }: { scope: SecretsScope }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(
    scope.kind === "project"
      ? trpc.secret.projectList.queryOptions({ projectId: scope.projectId })
      : scope.kind === "team"
        ? trpc.secret.teamList.queryOptions({ teamId: scope.teamId })
        : trpc.secret.list.queryOptions(),
  );
  const refresh = () =>
    void queryClient.invalidateQueries(
      scope.kind === "project"
        ? trpc.secret.projectList.queryFilter({ projectId: scope.projectId })
        : scope.kind === "team"
          ? trpc.secret.teamList.queryFilter({ teamId: scope.teamId })
          : trpc.secret.list.queryFilter(),
    );
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const onSaved = {
    onSuccess: (row: { name: string }) => {
      setSaved(row.name);
      setName("");
      setValue("");
    },
    onSettled: refresh,
  };
  const projectSet = useMutation(trpc.secret.projectSet.mutationOptions(onSaved));
  const teamSet = useMutation(trpc.secret.teamSet.mutationOptions(onSaved));
  const personSet = useMutation(trpc.secret.set.mutationOptions(onSaved));
  const projectRemove = useMutation(trpc.secret.projectRemove.mutationOptions({ onSettled: refresh }));
  const teamRemove = useMutation(trpc.secret.teamRemove.mutationOptions({ onSettled: refresh }));
  const personRemove = useMutation(trpc.secret.remove.mutationOptions({ onSettled: refresh }));
  const mutations = [projectSet, teamSet, personSet, projectRemove, teamRemove, personRemove];
  const manage = scope.kind === "person" || scope.manage;
  const trimmed = name.trim();
  const nameProblem = trimmed ? secretNameProblem(trimmed) : null;
  const shortValue = value.trim().length > 0 && value.trim().length < SECRET_MIN_LENGTH;
  const error = mutations.find((m) => m.error)?.error;
  const saving = projectSet.isPending || teamSet.isPending || personSet.isPending;
  const rows = list.data ?? [];

  const save = () => {
    const input = { name: trimmed, value };
    if (scope.kind === "project") projectSet.mutate({ projectId: scope.projectId, ...input });
    else if (scope.kind === "team") teamSet.mutate({ teamId: scope.teamId, ...input });
    else personSet.mutate(input);
  };
  const drop = (secretId: string) => {
    if (scope.kind === "project") projectRemove.mutate({ projectId: scope.projectId, secretId });
    else if (scope.kind === "team") teamRemove.mutate({ teamId: scope.teamId, secretId });
    else personRemove.mutate({ secretId });
  };

  return (
    <section className="card stack" id="secrets" data-testid={`secrets-${scope.kind}`}>
      <h2>{TEXT[scope.kind].title}</h2>
      <p className="hint">
        {TEXT[scope.kind].hint} Stored encrypted and never shown again; the agent uses them by name (<code>$NAME</code>)
        and sees <code>[secret NAME]</code> wherever a value would appear. Any program those processes run can read
        them.
      </p>
      {list.error && <div className="notice notice-error">{errorMessage(list.error)}</div>}
      {rows.length > 0 ? (
        <table className="table">
          <tbody>
            {rows.map((s) => (
              <tr key={s.id} data-testid={`secret-${s.name}`}>
                <td>
                  <code>{s.name}</code>
                </td>
                <td className="muted">set {new Date(s.updatedAt).toLocaleString()}</td>
                <td style={{ textAlign: "right" }}>
                  {manage && (
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => drop(s.id)}
                      aria-label={`Delete ${s.name}`}
                      data-testid="secret-remove"
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        list.data && <p className="muted">No secrets yet.</p>
      )}
      {manage && (
        <form
          className="row"
          style={{ flexWrap: "wrap" }}
          onSubmit={(event) => {
            event.preventDefault();
            setSaved(null);
            for (const m of mutations) m.reset();
            save();
          }}
        >
          <input
            className="input"
            style={{ flex: 1, minWidth: 140, fontFamily: "var(--font-mono, monospace)" }}
            placeholder="NAME (e.g. NPM_TOKEN)"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            autoComplete="off"
            spellCheck={false}
            aria-label="Secret name"
            aria-invalid={nameProblem ? true : undefined}
            data-testid="secret-name"
          />
          <input
            className="input"
            style={{ flex: 2, minWidth: 200 }}
            type="password"
            placeholder="Value"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            required
            autoComplete="new-password"
            aria-label="Secret value"
            data-testid="secret-value"
          />
          <button
            type="submit"
            className="btn btn-primary"
            disabled={saving || !trimmed || !!nameProblem || shortValue || !value.trim()}
            data-testid="secret-save"
          >
            {rows.some((s) => s.name === trimmed) ? "Replace" : "Add"}
          </button>
        </form>
      )}
      {manage && nameProblem && <p className="error-text">{nameProblem}</p>}
      {manage && shortValue && (
        <p className="error-text">
          A secret is at least {SECRET_MIN_LENGTH} characters: shorter values cannot be hidden from the agent.
        </p>
      )}
      {saved && (
        <div className="notice" role="status" data-testid="secret-saved">
          Saved <code>{saved}</code>. Its value will not be shown again; new terminals and agent turns get it.
        </div>
      )}
      {error && <div className="notice notice-error">{errorMessage(error)}</div>}
    </section>
  );
}
