"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { authClient, authErrorMessage } from "@/components/auth/auth-client";
import { AuthForm } from "@/components/auth/auth-form";
import { useAccountStatus } from "@/components/auth/use-account";
import { Brand } from "@/components/ui/brand";

export function SignUpView() {
  const status = useAccountStatus();
  const router = useRouter();
  const inviteToken = useSearchParams().get("invite") ?? undefined;

  useEffect(() => {
    if (status.data?.user) router.replace("/");
  }, [status.data, router]);

  const closed = status.data && !status.data.firstRun && status.data.signupMode === "invite" && !inviteToken;

  return (
    <main className="auth-page">
      <div className="auth-card" data-testid="sign-up-page">
        <Brand />
        <h1>{status.data?.firstRun ? "Create the first account (you will be the admin)" : "Create your account"}</h1>
        {inviteToken && <p className="muted">You were invited to this Tandem. Choose your name and password.</p>}
        {status.isPending || status.data?.user ? (
          <p className="muted">Loading…</p>
        ) : closed ? (
          <div className="notice" data-testid="signup-closed">
            Sign-up is by invitation; ask an admin for an invitation link.
          </div>
        ) : (
          <AuthForm
            mode="sign-up"
            submitLabel="Create account"
            onSubmit={async (fields) => {
              // inviteToken is read by the server's sign-up hook (server/auth/auth.ts).
              const { error } = await authClient.signUp.email({ ...fields, inviteToken } as typeof fields);
              if (error) return authErrorMessage(error, "sign-up");
              window.location.assign("/");
              return null;
            }}
          />
        )}
        <p className="muted">
          Already have an account? <Link href="/sign-in">Sign in</Link>
        </p>
      </div>
    </main>
  );
}
