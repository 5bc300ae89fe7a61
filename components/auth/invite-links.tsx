"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";

export function InviteLinks() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.account.invites.queryOptions());
  const [email, setEmail] = useState("");
  const [ttlDays, setTtlDays] = useState(7);
  const [link, setLink] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.account.invites.queryFilter());
  const create = useMutation(
    trpc.account.createInvite.mutationOptions({
      onSuccess: ({ token }) => {
        setLink(`${window.location.origin}/sign-up?invite=${token}`);
        setEmail("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.account.revokeInvite.mutationOptions({ onSuccess: () => void refresh() }));

  return (
    <section className="card stack">
      <h2>Invitation links</h2>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          setLink(null);
          create.mutate({ email: email.trim() || undefined, ttlDays });
        }}
      >
        <input
          className="input"
          type="email"
          placeholder="Email (optional: the link then works only for this address)"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          data-testid="invite-email"
        />
        <select
          className="input"
          style={{ width: 130 }}
          value={ttlDays}
          onChange={(event) => setTtlDays(Number(event.target.value))}
          aria-label="Expires after"
        >
          {[1, 7, 30, 90].map((days) => (
            <option key={days} value={days}>
              {days === 1 ? "1 day" : `${days} days`}
            </option>
          ))}
        </select>
        <button className="btn btn-primary" type="submit" disabled={create.isPending} data-testid="create-invite">
          Create link
        </button>
      </form>
      {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
      {link && (
        <ShownOnceLink
          message="Send this link to the person you invite. It is shown only now."
          url={link}
          testId="invite-link"
        />
      )}
      {invites.data && invites.data.length > 0 ? (
        <table className="table" data-testid="invite-table">
          <thead>
            <tr>
              <th>For</th>
              <th>Created</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {invites.data.map((invite) => (
              <tr key={invite.id}>
                <td>{invite.email ?? <span className="muted">anyone with the link</span>}</td>
                <td>{new Date(invite.createdAt).toLocaleString()}</td>
                <td>{new Date(invite.expiresAt).toLocaleDateString()}</td>
                <td style={{ textAlign: "right" }}>
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() => revoke.mutate({ id: invite.id })}
                    disabled={revoke.isPending}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">{invites.isPending ? "Loading…" : "No open invitations."}</p>
      )}
    </section>
  );
}
