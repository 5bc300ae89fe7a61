"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Scope = { kind: "user" } | { kind: "team"; teamId: string; manage: boolean };
type Kind = "token" | "ssh-key";

const EMPTY = { name: "", host: "", username: "", token: "", privateKey: "", passphrase: "" };

/**
 * Git credentials (a host and a personal access token, or an ssh private key): a person's own, or
 * a team's shared ones (its owners and admins manage them). A token or key goes in once and is
 * never shown again; an ssh key is known afterwards by its public key's fingerprint.
 */
export function GitCredentials({ scope, prefill }: { scope: Scope; prefill?: { host: string; kind: Kind } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const team = scope.kind === "team" ? { teamId: scope.teamId } : null;
  const list = useQuery(team ? trpc.gitCredential.teamList.queryOptions(team) : trpc.gitCredential.list.queryOptions());
  const refresh = () =>
    void queryClient.invalidateQueries(
      team ? trpc.gitCredential.teamList.queryFilter(team) : trpc.gitCredential.list.queryFilter(),
    );
  // Arriving from a refused push: the host is filled in, and the secret is what is left to give.
  const [kind, setKind] = useState<Kind>(prefill?.kind ?? "token");
  const [form, setForm] = useState(prefill ? { ...EMPTY, name: prefill.host, host: prefill.host } : EMPTY);
  const [saved, setSaved] = useState<{ name: string; fingerprint: string | null } | null>(null);
  const options = {
    onSuccess: (stored: { name: string; fingerprint: string | null }) => {
      setForm(EMPTY);
      setSaved(stored.fingerprint || prefill ? { name: stored.name, fingerprint: stored.fingerprint } : null);
    },
    onSettled: refresh,
  };
  const add = useMutation(trpc.gitCredential.add.mutationOptions(options));
  const teamAdd = useMutation(trpc.gitCredential.teamAdd.mutationOptions(options));
  const remove = useMutation(trpc.gitCredential.remove.mutationOptions({ onSettled: refresh }));
  const teamRemove = useMutation(trpc.gitCredential.teamRemove.mutationOptions({ onSettled: refresh }));
  const canManage = scope.kind === "user" || scope.manage;
  const error = add.error ?? teamAdd.error ?? remove.error ?? teamRemove.error;
  const common = { name: form.name, host: form.host, username: form.username || undefined };
  const input =
    kind === "ssh-key"
      ? { ...common, kind, privateKey: form.privateKey, passphrase: form.passphrase || undefined }
      : { ...common, kind, token: form.token };

  return (
    <section className="card stack" id="git-credentials" data-testid={`git-credentials-${scope.kind}`}>
      <h2>{scope.kind === "team" ? "Shared git credentials" : "Your git credentials"}</h2>
      <p className="hint">
        {scope.kind === "team"
          ? "Tokens and ssh keys the team's members use to clone, fetch and push. Owners and admins manage them."
          : "Tokens and ssh keys Tandem uses for you to clone, fetch, push and open pull requests."}{" "}
        Stored encrypted; used only for their host, by git in the project&apos;s sandbox (an ssh key never enters it:
        the server signs for it); never shown again.
      </p>
      {(list.data ?? []).length > 0 && (
        <table className="table">
          <tbody>
            {list.data!.map((c) => (
              <tr key={c.id} data-testid={`git-credential-${c.name}`}>
                <td>{c.name}</td>
                <td className="muted">{c.host}</td>
                <td className="muted">{c.username}</td>
                <td className="muted" data-testid="git-credential-kind">
                  {c.kind === "ssh-key" ? (
                    <span title="Public key fingerprint">
                      ssh key · <code>{c.fingerprint}</code>
                    </span>
                  ) : (
                    "token"
                  )}
                </td>
                <td style={{ textAlign: "right" }}>
                  {canManage && (
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() =>
                        team
                          ? teamRemove.mutate({ ...team, credentialId: c.id })
                          : remove.mutate({ credentialId: c.id })
                      }
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
          <select
            className="input"
            style={{ flex: "0 0 auto", width: "auto" }}
            value={kind}
            onChange={(e) => setKind(e.target.value as Kind)}
            aria-label="Kind"
            data-testid="git-credential-kind-select"
          >
            <option value="token">Token</option>
            <option value="ssh-key">SSH key</option>
          </select>
          <input
            className="input"
            style={{ flex: 1, minWidth: 120 }}
            placeholder="Name"
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            required
            aria-label="Credential name"
          />
          <input
            className="input"
            style={{ flex: 1, minWidth: 120 }}
            placeholder="Host (github.com)"
            value={form.host}
            onChange={(e) => setForm({ ...form, host: e.target.value })}
            required
            aria-label="Host"
          />
          <input
            className="input"
            style={{ flex: 1, minWidth: 100 }}
            placeholder={kind === "ssh-key" ? "Login (git)" : "Username (optional)"}
            value={form.username}
            onChange={(e) => setForm({ ...form, username: e.target.value })}
            aria-label="Username"
          />
          {kind === "token" ? (
            <input
              className="input"
              style={{ flex: 2, minWidth: 160 }}
              type="password"
              autoComplete="off"
              placeholder="Personal access token"
              value={form.token}
              onChange={(e) => setForm({ ...form, token: e.target.value })}
              required
              aria-label="Token"
              autoFocus={!!prefill}
              data-testid="git-credential-token"
            />
          ) : (
            <>
              <textarea
                className="input"
                style={{ flex: "1 1 100%", minHeight: 96, fontFamily: "var(--font-mono, monospace)", fontSize: 12 }}
                placeholder={"-----BEGIN OPENSSH PRIVATE KEY-----\n…\n-----END OPENSSH PRIVATE KEY-----"}
                spellCheck={false}
                autoComplete="off"
                value={form.privateKey}
                onChange={(e) => setForm({ ...form, privateKey: e.target.value })}
                required
                aria-label="Private key"
                autoFocus={!!prefill}
              />
              <input
                className="input"
                style={{ flex: 1, minWidth: 160 }}
                type="password"
                autoComplete="off"
                placeholder="Passphrase (if the key has one)"
                value={form.passphrase}
                onChange={(e) => setForm({ ...form, passphrase: e.target.value })}
                aria-label="Passphrase"
              />
            </>
          )}
          <button className="btn btn-primary" type="submit" disabled={add.isPending || teamAdd.isPending}>
            Add
          </button>
        </form>
      )}
      {saved && (
        <div className="hint" role="status" data-testid="git-credential-saved">
          Saved {saved.name}.
          {saved.fingerprint && (
            <>
              {" "}
              Its public key&apos;s fingerprint is <code>{saved.fingerprint}</code>: the host lists the same one for the
              key you added there.
            </>
          )}
          {prefill && " Go back to the project's Source Control and push again."}
        </div>
      )}
      {error && <div className="error-text">{errorMessage(error)}</div>}
    </section>
  );
}
