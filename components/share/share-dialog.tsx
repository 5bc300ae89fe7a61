"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";

const EXPIRIES = [1, 7, 30, 90];

type ShareDialogProps = { sessionId: string; approvalsBy: "team" | "author"; canManage: boolean; onClose: () => void };

/** Links to this session: make one (its token is shown once), list them, revoke them; who answers approvals. */
// A disabled button says why, beside it: a title alone shows only on hover, and not on every browser.
const NEEDS_LABEL = "Give the link a label (who it is for) to create it.";

export function ShareDialog({ sessionId, approvalsBy, canManage, onClose }: ShareDialogProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Fetched on every opening: a refresh cut short by closing the dialog must not leave the list stale.
  const links = useQuery({ ...trpc.share.list.queryOptions({ sessionId }), refetchOnMount: "always" });
  const [scope, setScope] = useState<"view" | "collaborate">("view");
  const [label, setLabel] = useState("");
  const [days, setDays] = useState(7);
  const [created, setCreated] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.share.list.queryFilter({ sessionId }));
  const create = useMutation(
    trpc.share.create.mutationOptions({
      onSuccess: (link) => {
        setCreated(`${window.location.origin}${link.path}`);
        setLabel("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.share.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const setApprovals = useMutation(
    trpc.session.setApprovalsBy.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.session.get.queryFilter({ sessionId })),
    }),
  );

  return (
    <Dialog title="Share this session" onClose={onClose} testId="share-dialog">
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          setCreated(null);
          create.mutate({ sessionId, scope, label, expiresInDays: days });
        }}
      >
        <div className="share-scopes" role="radiogroup" aria-label="What the link allows">
          <label className={`share-scope${scope === "view" ? " chosen" : ""}`}>
            <input
              type="radio"
              name="scope"
              checked={scope === "view"}
              onChange={() => setScope("view")}
              data-testid="share-scope-view"
            />
            <strong>View</strong>
            <span className="hint">
              Anyone with the link watches live and reads the files the session touched. No account needed; read-only.
            </span>
          </label>
          <label className={`share-scope${scope === "collaborate" ? " chosen" : ""}`}>
            <input
              type="radio"
              name="scope"
              checked={scope === "collaborate"}
              onChange={() => setScope("collaborate")}
              data-testid="share-scope-collaborate"
            />
            <strong>Collaborate</strong>
            <span className="hint">Signed-in members of this team send messages and answer approvals here.</span>
          </label>
        </div>
        <div className="row">
          <input
            className="input"
            placeholder="Label, e.g. who it is for"
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            aria-label="Label"
            data-testid="share-label"
            required
            maxLength={100}
          />
          <select
            className="input"
            style={{ width: 120 }}
            value={days}
            onChange={(e) => setDays(Number(e.target.value))}
            aria-label="Expires after"
            data-testid="share-expiry"
          >
            {EXPIRIES.map((d) => (
              <option key={d} value={d}>
                {d === 1 ? "1 day" : `${d} days`}
              </option>
            ))}
          </select>
          <button
            className="btn btn-primary"
            type="submit"
            disabled={create.isPending || !label.trim()}
            data-testid="share-create"
            title={label.trim() ? undefined : NEEDS_LABEL}
            aria-describedby={label.trim() ? undefined : "share-create-why"}
          >
            Create link
          </button>
        </div>
        {!label.trim() && (
          <div className="hint" id="share-create-why" data-testid="share-create-why">
            {NEEDS_LABEL}
          </div>
        )}
        {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
      </form>
      {created && (
        <ShownOnceLink message="Copy the link now: it is shown only once." url={created} testId="share-url" />
      )}
      <h3 className="share-subtitle">Links</h3>
      {links.data && links.data.length > 0 ? (
        <table className="table" data-testid="share-links">
          <tbody>
            {links.data.map((link) => (
              <tr key={link.id} data-testid="share-link-row" data-state={link.state}>
                <td>{link.label}</td>
                <td>
                  <span className={`status-pill ${link.scope}`}>{link.scope === "view" ? "View" : "Collaborate"}</span>
                </td>
                <td className="muted">
                  {link.state === "active"
                    ? `until ${new Date(link.expiresAt).toLocaleDateString()}`
                    : link.state === "revoked"
                      ? "revoked"
                      : link.state === "ended"
                        ? "ended: its maker can no longer share"
                        : "expired"}
                </td>
                <td style={{ textAlign: "right" }}>
                  {link.state === "active" && (
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm"
                      onClick={() => revoke.mutate({ sessionId, linkId: link.id })}
                      disabled={revoke.isPending}
                      data-testid="share-revoke"
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">{links.isPending ? "Loading…" : "No links yet."}</p>
      )}
      {revoke.error && <div className="error-text">{errorMessage(revoke.error)}</div>}
      <h3 className="share-subtitle">Who answers approvals</h3>
      <select
        className="input"
        value={approvalsBy}
        disabled={!canManage || setApprovals.isPending}
        onChange={(e) => setApprovals.mutate({ sessionId, approvalsBy: e.target.value as "team" | "author" })}
        aria-label="Who answers approvals"
        data-testid="approvals-by"
      >
        <option value="team">Anyone in the session who can write</option>
        <option value="author">Only the session&apos;s author</option>
      </select>
      {!canManage && <p className="hint">The session&apos;s author or a team admin can change this.</p>}
      {setApprovals.error && <div className="error-text">{errorMessage(setApprovals.error)}</div>}
      <div className="dialog-actions">
        <button className="btn" type="button" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
