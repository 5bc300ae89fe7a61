"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useAccountStatus } from "@/components/auth/use-account";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** /join/<token>: shows the team and role of an invitation, and joins once signed in. */
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
  return (
    <section className="card stack" data-testid="join-team">
      <h1>Join {info.data.team.name}</h1>
      <p>
        You are invited as <strong>{info.data.role}</strong>.
      </p>
      {user ? (
        <button className="btn btn-primary" onClick={() => accept.mutate({ token })} disabled={accept.isPending} data-testid="join-accept">
          Join as {user.name}
        </button>
      ) : (
        <Link className="btn btn-primary" href={`/sign-in?next=${encodeURIComponent(`/join/${token}`)}`} data-testid="join-sign-in">
          Sign in to join
        </Link>
      )}
      {accept.error && <div className="error-text">{errorMessage(accept.error)}</div>}
    </section>
  );
}
