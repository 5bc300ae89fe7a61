"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";
import { API_TOKEN_SCOPE_LABELS, API_TOKEN_SCOPES, type ApiTokenScope } from "@/lib/api-tokens";

const EXPIRY_DAYS = [7, 30, 90, 365];

/**
 * A person's API tokens, for scripts and CI (docs/api.md): each acts as them, limited to its scopes,
 * until it expires or is revoked. Its text is shown once, right after it is made.
 */
export function ApiTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.apiToken.list.queryOptions());
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiTokenScope[]>(["read"]);
  const [days, setDays] = useState(30);
  const [made, setMade] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.apiToken.list.queryFilter());
  const create = useMutation(
    trpc.apiToken.create.mutationOptions({
      onSuccess: ({ token }) => {
        setMade(token);
        setName("");
      },
      onSettled: refresh,
    }),
  );
  const revoke = useMutation(trpc.apiToken.revoke.mutationOptions({ onSettled: refresh }));
  const toggle = (scope: ApiTokenScope, on: boolean) =>
    setScopes((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));
  const now = Date.now();

  return (
    <section className="card stack" data-testid="api-tokens">
      <h2>API tokens</h2>
      <p className="hint">
        For scripts and CI: send one as <code>Authorization: Bearer &lt;token&gt;</code>. It acts as you, limited to its
        scopes, until it expires or you revoke it. Only its hash is stored.
      </p>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          setMade(null);
          create.mutate({ name, scopes, expiresInDays: days });
        }}
      >
        <div className="row">
          <input
            className="input"
            placeholder="Name (what uses it: CI, a script…)"
            value={name}
            onChange={(event) => setName(event.target.value)}
            data-testid="api-token-name"
          />
          <select
            className="input"
            style={{ width: 130 }}
            value={days}
            onChange={(event) => setDays(Number(event.target.value))}
            aria-label="Expires after"
          >
            {EXPIRY_DAYS.map((d) => (
              <option key={d} value={d}>
                {d} days
              </option>
            ))}
          </select>
          <button className="btn btn-primary" type="submit" disabled={create.isPending} data-testid="create-api-token">
            Create token
          </button>
        </div>
        <fieldset className="stack" style={{ border: 0, padding: 0, gap: 6 }}>
          <legend className="hint">Scopes</legend>
          {API_TOKEN_SCOPES.map((scope) => (
            <label key={scope} className="row" style={{ gap: 6 }} title={API_TOKEN_SCOPE_LABELS[scope]}>
              <input
                type="checkbox"
                checked={scope === "read" || scopes.includes(scope)}
                disabled={scope === "read"}
                onChange={(event) => toggle(scope, event.target.checked)}
                data-testid={`api-token-scope-${scope}`}
              />
              <span>
                <strong>{scope}</strong> <span className="muted">{API_TOKEN_SCOPE_LABELS[scope]}</span>
              </span>
            </label>
          ))}
        </fieldset>
      </form>
      {(create.error ?? revoke.error) && <div className="error-text">{errorMessage(create.error ?? revoke.error)}</div>}
      {made && (
        <ShownOnceLink message="Copy the token now: it is shown only this once." url={made} testId="api-token-made" />
      )}
      {tokens.data && tokens.data.length > 0 ? (
        <table className="table" data-testid="api-token-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Scopes</th>
              <th>Last used</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => {
              const ended = token.revokedAt ? "revoked" : new Date(token.expiresAt).getTime() <= now ? "expired" : null;
              return (
                <tr key={token.id} className={ended ? "muted" : undefined}>
                  <td>{token.name}</td>
                  <td>{token.scopes.join(", ")}</td>
                  <td>{token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : "never"}</td>
                  <td>{ended ?? new Date(token.expiresAt).toLocaleDateString()}</td>
                  <td style={{ textAlign: "right" }}>
                    {!ended && (
                      <button
                        type="button"
                        className="btn btn-ghost btn-sm"
                        onClick={() => revoke.mutate({ id: token.id })}
                        disabled={revoke.isPending}
                        data-testid={`revoke-api-token-${token.name}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p className="hint">{tokens.isPending ? "Loading…" : "No tokens yet."}</p>
      )}
    </section>
  );
}
