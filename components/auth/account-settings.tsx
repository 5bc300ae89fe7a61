"use client";

import Link from "next/link";
import { GitCredentials } from "@/components/git/git-credentials";
import { ApiTokens } from "@/components/auth/api-tokens";
import { NotificationSettings } from "@/components/notifications/notification-settings";
import { SecretsCard } from "@/components/secrets/secrets-card";

/**
 * A person's own settings: who they are, their notifications, the git credentials Tandem uses for them, their secrets, their API tokens. A refused
 * push links here with the remote's host (`host`, and `kind`: token or ssh-key) filled in.
 */
export function AccountSettings({
  user,
  host,
  kind,
}: {
  user: { name: string; email: string };
  host?: string;
  kind?: string;
}) {
  const prefill = host
    ? { host: host.trim().slice(0, 300), kind: kind === "ssh-key" ? ("ssh-key" as const) : ("token" as const) }
    : undefined;
  return (
    <>
      <div className="row">
        <Link className="btn btn-ghost btn-sm" href="/">
          ‹ Projects
        </Link>
        <h1 data-testid="account-title">Account</h1>
      </div>
      <section className="card stack">
        <h2>{user.name}</h2>
        <p className="muted">{user.email}</p>
      </section>
      {prefill && (
        <div className="notice" role="status" data-testid="account-credential-for">
          Add a {prefill.kind === "ssh-key" ? "ssh key" : "token"} for <strong>{prefill.host}</strong>: the host refused
          the push without one (or with the one stored). A team&apos;s shared credentials are in its team settings.
        </div>
      )}
      <NotificationSettings />
      <GitCredentials scope={{ kind: "user" }} prefill={prefill} />
      <SecretsCard scope={{ kind: "person" }} />
      <ApiTokens />
    </>
  );
}
