"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";
import { API_TOKEN_SCOPE_LABELS, API_TOKEN_SCOPES, type ApiTokenScope } from "@/lib/api-tokens";

const EXPIRY_DAYS = [7, 30, 90, 365];

type TokenRow = {
  id: string;
  name: string;
  scopes: ApiTokenScope[];
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};
type Made = { token: string };
type TokenInput = { name: string; scopes: ApiTokenScope[]; expiresInDays: number };

/**
 * A person's API tokens, for scripts and CI (docs/api.md): each acts as them, limited to its scopes,
 * until it expires or is revoked. Its text is shown once, right after it is made.
 */
export function ApiTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.apiToken.list.queryOptions());
  const refresh = () => void queryClient.invalidateQueries(trpc.apiToken.list.queryFilter());
  const create = useMutation(trpc.apiToken.create.mutationOptions({ onSettled: refresh }));
  const revoke = useMutation(trpc.apiToken.revoke.mutationOptions({ onSettled: refresh }));
  return (
    <TokenCard
      title="API tokens"
      hint="It acts as you, limited to its scopes, until it expires or you revoke it."
      tokens={tokens.data}
      pending={tokens.isPending}
      create={(input) => create.mutateAsync(input)}
      revoke={(id) => revoke.mutateAsync({ id })}
      busy={create.isPending || revoke.isPending}
      error={create.error ?? revoke.error}
      testId="api-tokens"
    />
  );
}

/**
 * A team's tokens (its owners and admins manage them): each acts as an account of the team's own,
 * in this team only, by the team's rules, whoever made it and whether or not they stay.
 */
export function TeamTokens({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.apiToken.teamList.queryOptions({ teamId }));
  const refresh = () => void queryClient.invalidateQueries(trpc.apiToken.teamList.queryFilter({ teamId }));
  const create = useMutation(trpc.apiToken.teamCreate.mutationOptions({ onSettled: refresh }));
  const revoke = useMutation(trpc.apiToken.teamRevoke.mutationOptions({ onSettled: refresh }));
  return (
    <TokenCard
      title="Team tokens"
      hint="It acts for the team, in the team's projects only, limited to its scopes, until it expires or is revoked; it belongs to no person."
      tokens={tokens.data}
      pending={tokens.isPending}
      create={(input) => create.mutateAsync({ teamId, ...input })}
      revoke={(id) => revoke.mutateAsync({ teamId, id })}
      busy={create.isPending || revoke.isPending}
      error={create.error ?? revoke.error}
      testId="team-tokens"
    />
  );
}

function TokenCard({
  title,
  hint,
  tokens,
  pending,
  create,
  revoke,
  busy,
  error,
  testId,
}: {
  title: string;
  hint: string;
  tokens: TokenRow[] | undefined;
  pending: boolean;
  create: (input: TokenInput) => Promise<Made>;
  revoke: (id: string) => Promise<unknown>;
  busy: boolean;
  error: unknown;
  testId: string;
}) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiTokenScope[]>(["read"]);
  const [days, setDays] = useState(30);
  const [made, setMade] = useState<string | null>(null);
  const toggle = (scope: ApiTokenScope, on: boolean) =>
    setScopes((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));
  const now = Date.now();

  return (
    <section className="card stack" data-testid={testId}>
      <h2>{title}</h2>
      <p className="hint">
        For scripts and CI: send one as <code>Authorization: Bearer &lt;token&gt;</code>. {hint} Only its hash is
        stored.
      </p>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          setMade(null);
          create({ name, scopes, expiresInDays: days }).then(
            ({ token }) => {
              setMade(token);
              setName("");
            },
            () => undefined,
          );
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
          <button className="btn btn-primary" type="submit" disabled={busy} data-testid="create-api-token">
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
      {error ? <div className="error-text">{errorMessage(error)}</div> : null}
      {made && (
        <ShownOnceLink message="Copy the token now: it is shown only this once." url={made} testId="api-token-made" />
      )}
      {tokens && tokens.length > 0 ? (
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
            {tokens.map((token) => {
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
                        onClick={() => void revoke(token.id).catch(() => undefined)}
                        disabled={busy}
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
        <p className="hint">{pending ? "Loading…" : "No tokens yet."}</p>
      )}
    </section>
  );
}
