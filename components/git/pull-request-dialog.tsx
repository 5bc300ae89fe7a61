"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useOpenSession } from "@/components/chat/open-session-context";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";

/** Opens a pull request for the pushed branch through the host's API, with the person's stored token. */
export function PullRequestDialog({
  projectId,
  onClose,
  onOpened,
}: {
  projectId: string;
  onClose: () => void;
  onOpened: (url: string) => void;
}) {
  const trpc = useTRPC();
  const last = useQuery(trpc.git.lastCommitMessage.queryOptions({ projectId }));
  const [title, setTitle] = useState<string | null>(null);
  const [base, setBase] = useState("main");
  const [body, setBody] = useState("");
  const { sessionId } = useOpenSession();
  const open = useMutation(trpc.git.openPullRequest.mutationOptions({ onSuccess: (pr) => onOpened(pr.url) }));
  const shownTitle = title ?? last.data?.split("\n")[0] ?? "";
  return (
    <Dialog title="Open pull request" onClose={onClose} testId="pull-request-dialog">
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          open.mutate({ projectId, title: shownTitle, body, base, sessionId: sessionId ?? undefined });
        }}
      >
        <label className="field">
          <span>Title</span>
          {/* Filled with the last commit's subject: until it arrives the field waits, so what someone types is
              not joined to a default that lands under the caret ("Initial commitShip the widgets"). */}
          <input
            className="input"
            value={shownTitle}
            onChange={(e) => setTitle(e.target.value)}
            disabled={last.isPending}
            placeholder={last.isPending ? "Reading the last commit…" : undefined}
            data-testid="pull-request-title"
            required
          />
        </label>
        <label className="field">
          <span>Into branch</span>
          <input
            className="input"
            value={base}
            onChange={(e) => setBase(e.target.value)}
            data-testid="pull-request-base"
            required
          />
        </label>
        <label className="field">
          <span>Description</span>
          <textarea
            className="input"
            rows={4}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            style={{ height: "auto" }}
          />
        </label>
        {sessionId && (
          <p className="hint">Its link is also posted in the agent session that is open, for everyone in it.</p>
        )}
        {open.error && <div className="error-text">{errorMessage(open.error)}</div>}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={open.isPending || !shownTitle.trim()}
            data-testid="pull-request-submit"
          >
            {open.isPending ? "Opening…" : "Open pull request"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
