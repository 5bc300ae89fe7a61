"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { TeamTokens } from "@/components/auth/api-tokens";
import { GitCredentials } from "@/components/git/git-credentials";
import { InternalHostsCard } from "@/components/team/internal-hosts-card";
import { SecretsCard } from "@/components/secrets/secrets-card";
import { ShownOnceLink } from "@/components/ui/shown-once-link";
import "@/components/share/share.css";

const ROLES = ["owner", "admin", "member", "viewer"] as const;
const ROLE_HELP: Record<string, string> = {
  owner: "everything, including owners",
  admin: "manages members, invitations and settings",
  member: "works: edits files, runs terminals and the agent",
  viewer: "reads everything, changes nothing",
};

/** A team's members and their roles, and its invitation links (owners and admins change them). */
export function TeamSettings({ teamId, me }: { teamId: string; me: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamId }));
  const members = useQuery(trpc.team.members.queryOptions({ teamId }));
  const manage = team.data?.role === "owner" || team.data?.role === "admin";
  if (team.error) return <div className="notice notice-error">{errorMessage(team.error)}</div>;
  return (
    <>
      <div className="row">
        <Link className="btn btn-ghost btn-sm" href="/">
          ‹ Projects
        </Link>
        <h1 data-testid="team-title">{team.data?.name ?? "…"}</h1>
        {team.data && <span className="role-pill">you are {team.data.role}</span>}
        <span style={{ flex: 1 }} />
        <Link className="btn btn-sm" href={`/teams/${teamId}/usage`} data-testid="team-usage-link">
          Usage
        </Link>
      </div>
      <section className="card stack">
        <h2>Members</h2>
        <table className="table" data-testid="team-members">
          <tbody>
            {(members.data ?? []).map((m) => (
              <MemberRow
                key={m.id}
                teamId={teamId}
                member={m}
                manage={manage}
                mine={team.data?.role ?? "viewer"}
                isMe={m.id === me}
                lastOwner={m.role === "owner" && (members.data ?? []).filter((o) => o.role === "owner").length === 1}
              />
            ))}
          </tbody>
        </table>
        <p className="hint">{ROLES.map((r) => `${r}: ${ROLE_HELP[r]}`).join(" · ")}</p>
      </section>
      {manage && <TeamInvites teamId={teamId} emails={team.data?.emailsInvites ?? false} />}
      {team.data && <GitCredentials scope={{ kind: "team", teamId, manage }} />}
      {team.data && team.data.role !== "viewer" && <SecretsCard scope={{ kind: "team", teamId, manage }} />}
      {team.data && <InternalHostsCard teamId={teamId} manage={manage} />}
      {manage && <TeamTokens teamId={teamId} />}
    </>
  );
}

type Member = { id: string; name: string; email: string; role: (typeof ROLES)[number] };

function MemberRow({
  teamId,
  member,
  manage,
  mine,
  isMe,
  lastOwner,
}: {
  teamId: string;
  member: Member;
  manage: boolean;
  mine: string;
  isMe: boolean;
  /** The team's only owner: offered no change the server would refuse ("a team needs an owner"). */
  lastOwner: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.team.members.queryFilter({ teamId }));
  const setRole = useMutation(trpc.team.setRole.mutationOptions({ onSettled: () => void refresh() }));
  const remove = useMutation(trpc.team.removeMember.mutationOptions({ onSettled: () => void refresh() }));
  const editable = manage && !lastOwner && (mine === "owner" || member.role !== "owner");
  const error = setRole.error ?? remove.error;
  return (
    <tr data-testid={`member-${member.email}`}>
      <td>
        {member.name}
        {isMe && <span className="muted"> (you)</span>}
        <div className="hint">{member.email}</div>
      </td>
      <td>
        {editable ? (
          <select
            className="input"
            value={member.role}
            onChange={(e) => setRole.mutate({ teamId, userId: member.id, role: e.target.value as Member["role"] })}
            aria-label={`Role of ${member.name}`}
            data-testid="member-role"
          >
            {ROLES.filter((r) => mine === "owner" || r !== "owner").map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          <span
            className="role-pill"
            title={lastOwner ? "The team's only owner: make someone else an owner to change this" : undefined}
            data-testid="member-role-text"
          >
            {member.role}
          </span>
        )}
        {error && <div className="error-text">{errorMessage(error)}</div>}
      </td>
      <td style={{ textAlign: "right" }}>
        {(editable || (isMe && !lastOwner)) && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => remove.mutate({ teamId, userId: member.id })}
            disabled={remove.isPending}
          >
            {isMe ? "Leave" : "Remove"}
          </button>
        )}
      </td>
    </tr>
  );
}

function TeamInvites({ teamId, emails }: { teamId: string; emails: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.team.invites.queryOptions({ teamId }));
  const [role, setRole] = useState<"admin" | "member" | "viewer">("member");
  const [email, setEmail] = useState("");
  const [link, setLink] = useState<string | null>(null);
  const [emailed, setEmailed] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.team.invites.queryFilter({ teamId }));
  const create = useMutation(
    trpc.team.createInvite.mutationOptions({
      onSuccess: (invite) => {
        setLink(`${window.location.origin}${invite.path}`);
        setEmailed(invite.emailed ? invite.email : null);
        setEmail("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.team.revokeInvite.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <section className="card stack">
      <h2>Invite people</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setLink(null);
          create.mutate({ teamId, role, email: email.trim() || undefined });
        }}
      >
        <input
          className="input"
          type="email"
          placeholder="Email (optional: then only that account can use it)"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          data-testid="team-invite-email"
        />
        <select
          className="input"
          style={{ width: 120 }}
          value={role}
          onChange={(e) => setRole(e.target.value as typeof role)}
          aria-label="Role"
          data-testid="team-invite-role"
        >
          <option value="admin">admin</option>
          <option value="member">member</option>
          <option value="viewer">viewer</option>
        </select>
        <button className="btn btn-primary" type="submit" disabled={create.isPending} data-testid="team-invite-create">
          Create link
        </button>
      </form>
      <p className="hint">
        {emails
          ? "With an email address, the link is also sent by email. "
          : "Email is not configured on this server (no SMTP, or no public URL): send the link yourself. "}
        It works once, for 7 days; the person signs in (or is given a sign-up invitation by an admin) and joins.
      </p>
      {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
      {link && (
        <ShownOnceLink
          message={`${emailed ? `Sent to ${emailed}. ` : ""}Copy the link now: it is shown only once.`}
          url={link}
          testId="team-invite-link"
        />
      )}
      {invites.data && invites.data.length > 0 ? (
        <table className="table" data-testid="team-invites">
          <tbody>
            {invites.data.map((invite) => (
              <tr key={invite.id}>
                <td>{invite.email ?? <span className="muted">anyone with the link</span>}</td>
                <td>
                  <span className="role-pill">{invite.role}</span>
                </td>
                <td className="muted">until {new Date(invite.expiresAt).toLocaleDateString()}</td>
                <td style={{ textAlign: "right" }}>
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() => revoke.mutate({ teamId, inviteId: invite.id })}
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
