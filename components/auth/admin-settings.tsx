"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { CommandGuardCard } from "@/components/auth/command-guard-card";
import { InviteLinks } from "@/components/auth/invite-links";
import { NetworkPoliciesCard } from "@/components/auth/network-policies-card";
import { UsersCard } from "@/components/auth/users-card";
import { TelemetryCard } from "@/components/auth/telemetry-card";
import { WebSearchCard } from "@/components/auth/web-search-card";
import { SettingsSections } from "@/components/ui/settings-sections";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

export function AdminSettings({ role, selfId }: { role: string; selfId: string }) {
  if (role !== "admin") {
    return <div className="notice notice-error">Only an admin can change these settings.</div>;
  }
  return (
    <>
      <h1>Admin settings</h1>
      <nav className="row" aria-label="Admin pages">
        <Link className="btn" href="/admin/usage" data-testid="admin-usage-link">
          Usage and budgets
        </Link>
        <Link className="btn" href="/admin/audit" data-testid="admin-audit-link">
          Audit log
        </Link>
      </nav>
      <SettingsSections
        sections={[
          { id: "sign-up", label: "Who can sign up", card: <SignupModeCard /> },
          { id: "invitations", label: "Invitation links", card: <InviteLinks /> },
          { id: "people", label: "People", card: <UsersCard selfId={selfId} /> },
          { id: "web-search", label: "Web search", card: <WebSearchCard /> },
          { id: "command-guard", label: "Command guard", card: <CommandGuardCard /> },
          { id: "sandbox", label: "Sandbox", card: <SandboxCard /> },
          { id: "network-policies", label: "Network policies", card: <NetworkPoliciesCard /> },
          { id: "telemetry", label: "Agent telemetry", card: <TelemetryCard /> },
        ]}
      />
    </>
  );
}

/** What the server runs commands in, as its start-up line says: sandbox, network backend, limits. */
function SandboxCard() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.account.settings.queryOptions());
  return (
    <section className="card" data-testid="sandbox-card">
      <div className="section-title">
        <h2>Sandbox</h2>
        <span className="hint">
          Set in the server&apos;s environment (TANDEM_SANDBOX and TANDEM_SANDBOX_* limits; see docs/configuration.md).
        </span>
      </div>
      <p data-testid="sandbox-in-force">{settings.data?.sandbox ?? "…"}</p>
    </section>
  );
}

function SignupModeCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.account.settings.queryOptions());
  const [error, setError] = useState<string | null>(null);
  const setMode = useMutation(
    trpc.account.setSignupMode.mutationOptions({
      onSuccess: () => {
        setError(null);
        void queryClient.invalidateQueries(trpc.account.settings.queryFilter());
        void queryClient.invalidateQueries(trpc.account.status.queryFilter());
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const mode = setMode.isPending ? setMode.variables.signupMode : settings.data?.signupMode;

  return (
    <section className="card">
      <div className="section-title">
        <h2>Who can sign up</h2>
      </div>
      <div className="row">
        <div className="segmented" role="group" aria-label="Sign-up mode" data-testid="signup-mode">
          {(["invite", "open"] as const).map((value) => (
            <button
              key={value}
              type="button"
              aria-pressed={mode === value}
              disabled={!settings.data}
              onClick={() => setMode.mutate({ signupMode: value })}
              data-testid={`signup-mode-${value}`}
            >
              {value === "invite" ? "By invitation" : "Anyone"}
            </button>
          ))}
        </div>
        <span className="hint">
          {mode === "open"
            ? "Anyone who can reach this server can create an account."
            : "Only people with an invitation link can create an account."}
        </span>
      </div>
      {error && <div className="error-text">{error}</div>}
    </section>
  );
}
