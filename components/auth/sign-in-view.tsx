"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { authClient, authErrorMessage } from "@/components/auth/auth-client";
import { AuthForm } from "@/components/auth/auth-form";
import { afterSignInPath, useAccountStatus } from "@/components/auth/use-account";
import { Brand } from "@/components/ui/brand";

export function SignInView() {
  const status = useAccountStatus();
  const router = useRouter();
  const next = afterSignInPath(useSearchParams().get("next"));

  useEffect(() => {
    if (status.data?.user) router.replace(next);
  }, [status.data, router, next]);

  // A full page load afterwards, so every cached query and socket starts as the new user.
  const enter = () => window.location.assign(next);

  return (
    <main className="auth-page">
      <div className="auth-card" data-testid="sign-in-page">
        <Brand />
        {status.isPending || status.data?.user ? (
          <p className="muted">Loading…</p>
        ) : status.error ? (
          <div className="notice notice-error">Could not reach the server. Reload the page to try again.</div>
        ) : status.data.firstRun ? (
          <>
            <h1>Create the first account (you will be the admin)</h1>
            <p className="muted">
              Nobody has signed up on this Tandem yet. The first account manages who else can join.
            </p>
            <AuthForm
              mode="sign-up"
              submitLabel="Create admin account"
              onSubmit={async (fields) => {
                const { error } = await authClient.signUp.email(fields);
                if (error) return authErrorMessage(error, "sign-up");
                enter();
                return null;
              }}
            />
          </>
        ) : (
          <>
            <h1>Sign in</h1>
            <AuthForm
              mode="sign-in"
              submitLabel="Sign in"
              onSubmit={async ({ email, password }) => {
                const { error } = await authClient.signIn.email({ email, password });
                if (error) return authErrorMessage(error, "sign-in");
                enter();
                return null;
              }}
            />
            <p className="muted">
              {status.data.signupMode === "open" ? (
                <>
                  No account yet? <Link href="/sign-up">Create one</Link>
                </>
              ) : (
                "New here? Sign-up is by invitation; ask an admin for an invitation link."
              )}
            </p>
          </>
        )}
      </div>
    </main>
  );
}
