"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { authClient, authErrorMessage } from "@/components/auth/auth-client";
import { AuthForm } from "@/components/auth/auth-form";
import { useAccountStatus } from "@/components/auth/use-account";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/**
 * /join/<token>: shows the team and role of an invitation; a signed-in person joins with a click,
 * someone new signs up on the spot and is in the team (the server uses the link up at sign-up).
 */
export function JoinTeam({ token }: { token: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const status = useAccountStatus();
  const info = useQuery(trpc.team.inviteInfo.queryOptions({ token }, { retry: false, staleTime: Infinity }));
  const accept = useMutation(
    trpc.team.acceptInvite.mutationOptions({
      onSuccess: async ({ team }) => {
        window.localStorage.setItem("tandem.team", team.id);
        await queryClient.invalidateQueries(trpc.team.list.queryFilter());
        router.push("/");
      },
    }),
  );
  if (info.isPending || status.isPending) return <p className="muted">Loading…</p>;
  if (info.error) return <div className="notice notice-error">{errorMessage(info.error)}</div>;
  if (!info.data.ok) {
    return (
      <section className="card stack" data-testid="join-invalid">
        <h1>This invitation does not work</h1>
        <p>{info.data.reason}</p>
      </section>
    );
  }
  const user = status.data?.user;
  const team = info.data.team;
  return (
    <section className="card stack" data-testid="join-team">
      <h1>Join {team.name}</h1>
      <p>
        You are invited as <strong>{info.data.role}</strong>.
      </p>
      {user ? (
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => accept.mutate({ token })}
          disabled={accept.isPending}
          data-testid="join-accept"
        >
          Join as {user.name}
        </button>
      ) : (
        <>
          <p className="muted">New to Tandem? Create your account to join.</p>
          <AuthForm
            mode="sign-up"
            submitLabel="Create account and join"
            initialEmail={info.data.email ?? ""}
            onSubmit={async (fields) => {
              // teamInviteToken is read by the server's sign-up hook (server/auth/auth.ts).
              const { error } = await authClient.signUp.email({ ...fields, teamInviteToken: token } as typeof fields);
              if (error) return authErrorMessage(error, "sign-up");
              window.localStorage.setItem("tandem.team", team.id);
              // A full page load, so every cached query and socket starts as the new account.
              window.location.assign("/");
              return null;
            }}
          />
          <p className="muted">
            Already have an account?{" "}
            <Link href={`/sign-in?next=${encodeURIComponent(`/join/${token}`)}`} data-testid="join-sign-in">
              Sign in to join
            </Link>
          </p>
        </>
      )}
      {accept.error && <div className="error-text">{errorMessage(accept.error)}</div>}
    </section>
  );
}
