"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Scope = { kind: "user" } | { kind: "team"; teamId: string; manage: boolean };

/**
 * Git credentials (a host and a personal access token): a person's own, or a team's shared ones
 * (its owners and admins manage them). A token goes in once and is never shown again.
 */
export function GitCredentials({ scope }: { scope: Scope }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const team = scope.kind === "team" ? { teamId: scope.teamId } : null;
  const list = useQuery(team ? trpc.gitCredential.teamList.queryOptions(team) : trpc.gitCredential.list.queryOptions());
  const refresh = () => void queryClient.invalidateQueries(team ? trpc.gitCredential.teamList.queryFilter(team) : trpc.gitCredential.list.queryFilter());
  const [form, setForm] = useState({ name: "", host: "", username: "", token: "" });
  const options = {
    onSuccess: () => setForm({ name: "", host: "", username: "", token: "" }),
    onSettled: refresh,
  };
  const add = useMutation(trpc.gitCredential.add.mutationOptions(options));
  const teamAdd = useMutation(trpc.gitCredential.teamAdd.mutationOptions(options));
  const remove = useMutation(trpc.gitCredential.remove.mutationOptions({ onSettled: refresh }));
  const teamRemove = useMutation(trpc.gitCredential.teamRemove.mutationOptions({ onSettled: refresh }));
  const canManage = scope.kind === "user" || scope.manage;
  const error = add.error ?? teamAdd.error ?? remove.error ?? teamRemove.error;
  const input = { name: form.name, host: form.host, username: form.username || undefined, token: form.token };

  return (
    <section className="card stack" data-testid={`git-credentials-${scope.kind}`}>
      <h2>{scope.kind === "team" ? "Shared git credentials" : "Your git credentials"}</h2>
      <p className="hint">
        {scope.kind === "team"
          ? "Tokens the team's members use to clone, fetch and push. Owners and admins manage them."
          : "Tokens Tandem uses for you to clone, fetch, push and open pull requests."}{" "}
        Stored encrypted; sent only to their host, through git in the project&apos;s sandbox; never shown again.
      </p>
      {(list.data ?? []).length > 0 && (
        <table className="table">
          <tbody>
            {list.data!.map((c) => (
              <tr key={c.id} data-testid={`git-credential-${c.name}`}>
                <td>{c.name}</td>
                <td className="muted">{c.host}</td>
                <td className="muted">{c.username}</td>
                <td style={{ textAlign: "right" }}>
                  {canManage && (
                    <button
                      className="btn btn-sm"
                      onClick={() => (team ? teamRemove.mutate({ ...team, credentialId: c.id }) : remove.mutate({ credentialId: c.id }))}
                      data-testid="git-credential-remove"
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canManage && (
        <form
          className="row"
          style={{ flexWrap: "wrap" }}
          onSubmit={(event) => {
            event.preventDefault();
            if (team) teamAdd.mutate({ ...team, ...input });
            else add.mutate(input);
          }}
        >
          <input className="input" style={{ flex: 1, minWidth: 120 }} placeholder="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required aria-label="Credential name" />
          <input className="input" style={{ flex: 1, minWidth: 120 }} placeholder="Host (github.com)" value={form.host} onChange={(e) => setForm({ ...form, host: e.target.value })} required aria-label="Host" />
          <input className="input" style={{ flex: 1, minWidth: 100 }} placeholder="Username (optional)" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} aria-label="Username" />
          <input className="input" style={{ flex: 2, minWidth: 160 }} type="password" autoComplete="off" placeholder="Personal access token" value={form.token} onChange={(e) => setForm({ ...form, token: e.target.value })} required aria-label="Token" />
          <button className="btn btn-primary" type="submit" disabled={add.isPending || teamAdd.isPending}>
            Add
          </button>
        </form>
      )}
      {error && <div className="error-text">{errorMessage(error)}</div>}
    </section>
  );
}
