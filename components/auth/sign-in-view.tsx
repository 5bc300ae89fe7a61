"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { authClient, authErrorMessage } from "@/components/auth/auth-client";
import { AuthForm } from "@/components/auth/auth-form";
import { afterSignInPath, useAccountStatus } from "@/components/auth/use-account";
import { Brand } from "@/components/ui/brand";
import { ACCOUNT_DISABLED, SSO_NOT_ADMITTED, SSO_PROVIDER_ID } from "@/lib/sso";

export function SignInView() {
  const status = useAccountStatus();
  const router = useRouter();
  const params = useSearchParams();
  const next = afterSignInPath(params.get("next"));
  const ssoError = params.get("error");

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
        ) : status.data.firstRun && status.data.passwordSignIn ? (
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
            {ssoError && (
              <div className="notice notice-error" role="alert" data-testid="sso-error">
                {ssoErrorMessage(ssoError)}
              </div>
            )}
            {status.data.sso && <SsoButton name={status.data.sso.name} next={next} />}
            {status.data.sso && status.data.passwordSignIn && <p className="muted auth-or">or</p>}
            {status.data.passwordSignIn && (
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
            )}
            <p className="muted">
              {!status.data.passwordSignIn ? (
                "Accounts come from your organisation's sign-on."
              ) : status.data.signupMode === "open" ? (
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

/** Starts single sign-on: the server answers with the provider's address, and the page goes there. */
function SsoButton({ name, next }: { name: string; next: string }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className="btn btn-primary"
        disabled={busy}
        data-testid="sso-sign-in"
        onClick={async () => {
          setBusy(true);
          setFailed(null);
          const { error } = await authClient.signIn.social({
            provider: SSO_PROVIDER_ID,
            callbackURL: next,
            errorCallbackURL: "/sign-in",
          });
          // On success the browser is already on its way to the provider.
          if (error) {
            setFailed(error.message || "The sign-on provider could not be reached. Try again later.");
            setBusy(false);
          }
        }}
      >
        {busy ? "Please wait…" : `Sign in with ${name}`}
      </button>
      {failed && <div className="error-text">{failed}</div>}
    </>
  );
}

/** better-auth comes back from a refused sign-on with `?error=<code>`. */
function ssoErrorMessage(code: string): string {
  if (code === ACCOUNT_DISABLED) return "Your sign-on worked, but an admin disabled your account on this Tandem.";
  if (code === SSO_NOT_ADMITTED || /signup|sign_up|unable_to_create_user/i.test(code))
    return "Your sign-on worked, but this Tandem has no account for you: your email's domain is not admitted. Ask an admin for an invitation.";
  return `Single sign-on did not complete (${code.replace(/[^\w.-]/g, " ").slice(0, 80)}). Try again, or ask an admin.`;
}
