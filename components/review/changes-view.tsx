"use client";

import "@/components/review/review.css";
import { useMutation, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import { useOpenTabs } from "@/components/editor/open-files-context";
import type { HunkWork } from "@/components/review/review-hunks";
import { type ReviewComments, useReviewComments } from "@/components/review/use-review-comments";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

// Paths are shown right-to-left so that a long one is cut at its start; the marks keep a leading
// "." or a trailing punctuation mark where it belongs.
const ltr = (text: string) => `\u200e${text}\u200e`;

const ReviewDiff = dynamic(() => import("@/components/review/review-diff"), {
  ssr: false,
  loading: () => <div className="center-message">Loading diff…</div>,
});

const STATUS_LETTER: Record<string, string> = { added: "A", modified: "M", deleted: "D", renamed: "R" };

/**
 * The Changes tab, the review of a session as a whole: every file an agent session changed since
 * its review base (or since a chosen turn), each as a diff with Accept / Reject per hunk and per
 * file, and review comments on its lines, which "Send review" sends to the agent. It follows the
 * disk, the session and the comments live (use-review-refresh.ts, use-review-comments.ts), so it
 * updates while the agent works.
 */
export function ChangesView({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const [since, setSince] = useState<string | undefined>(undefined);
  const session = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const checkpoints = useQuery(trpc.checkpoint.list.queryOptions({ sessionId }));
  const changes = useQuery(trpc.review.changes.queryOptions({ sessionId, sinceCheckpointId: since }));
  const [selected, setSelected] = useState<string | null>(null);
  const files = changes.data?.files ?? [];
  const current = files.find((f) => f.path === selected) ?? files[0] ?? null;
  const canWrite = session.data?.canWrite ?? false;
  const review = useReviewComments(sessionId, since);
  const me = useQuery(trpc.account.status.queryOptions(undefined, { staleTime: 30_000 })).data?.user?.id ?? null;

  return (
    <div className="changes-view" data-testid="changes-view">
      <div className="changes-header">
        <strong
          className="changes-title"
          title={session.data ? `Changes made in the session “${session.data.title}”` : undefined}
        >
          Changes
        </strong>
        <span className="muted" data-testid="changes-count">
          {files.length} {files.length === 1 ? "file" : "files"}
        </span>
        <span className="spacer" />
        {canWrite && (review.open.length > 0 || review.sending) && (
          <button
            type="button"
            className="btn btn-primary btn-sm"
            disabled={review.sending}
            onClick={review.send}
            data-testid="send-review"
            title="Send every open comment to the agent, as one message"
          >
            {review.sending ? "Sending…" : `Send review (${review.open.length})`}
          </button>
        )}
        <label className="changes-since">
          <span className="muted">Since</span>
          <select
            value={since ?? ""}
            onChange={(event) => setSince(event.target.value || undefined)}
            data-testid="changes-since"
          >
            <option value="">session start</option>
            {(checkpoints.data?.checkpoints ?? []).map((c, i) => (
              <option key={c.checkpointId} value={c.checkpointId}>
                turn {i + 1}: {c.request?.slice(0, 40) ?? "(resumed)"}
              </option>
            ))}
          </select>
        </label>
      </div>
      {review.error && (
        <div className="banner banner-warning" role="alert" data-testid="comment-error">
          <span className="banner-text">{errorMessage(review.error)}</span>
        </div>
      )}
      {changes.error ? (
        <div className="center-message">{errorMessage(changes.error)}</div>
      ) : changes.isPending ? (
        <div className="center-message">Loading changes…</div>
      ) : files.length === 0 ? (
        <div className="center-message" data-testid="changes-empty">
          {changes.data?.baseId
            ? "Nothing left to review: every change was accepted or rejected."
            : "The agent has not changed any file in this session yet."}
        </div>
      ) : (
        <div className="changes-body">
          <ul className="changes-files" aria-label="Changed files">
            {files.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  className={f.path === current?.path ? "changes-file selected" : "changes-file"}
                  onClick={() => setSelected(f.path)}
                  data-testid="changes-file"
                  data-path={f.path}
                  title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}
                >
                  <span className={`change-status status-${f.status}`}>{STATUS_LETTER[f.status] ?? "?"}</span>
                  <span className="changes-file-name">{ltr(f.path)}</span>
                  {review.comments.some((c) => c.path === f.path && !c.addressedAt) && (
                    <span className="badge changes-file-comments" title="Review comments not yet addressed">
                      {review.comments.filter((c) => c.path === f.path && !c.addressedAt).length}
                    </span>
                  )}
                  {f.hunks !== null && (
                    <span className="changes-file-stats">
                      <span className="diff-added">+{f.added}</span> <span className="diff-removed">−{f.removed}</span>
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
          {current && (
            <ChangedFile
              key={`${current.path}:${since ?? ""}`}
              sessionId={sessionId}
              path={current.path}
              since={since}
              canWrite={canWrite}
              review={review}
              me={me}
            />
          )}
        </div>
      )}
    </div>
  );
}

function ChangedFile({
  sessionId,
  path,
  since,
  canWrite,
  review,
  me,
}: {
  sessionId: string;
  path: string;
  since: string | undefined;
  canWrite: boolean;
  review: ReviewComments;
  me: string | null;
}) {
  const trpc = useTRPC();
  const refresh = useReviewRefresh();
  const tabs = useOpenTabs();
  const file = useQuery(trpc.review.file.queryOptions({ sessionId, path, sinceCheckpointId: since }));
  const options = { onSettled: refresh };
  const rejectHunk = useMutation(trpc.review.rejectHunk.mutationOptions(options));
  const acceptHunk = useMutation(trpc.review.acceptHunk.mutationOptions(options));
  const rejectFile = useMutation(trpc.review.rejectFile.mutationOptions(options));
  const acceptFile = useMutation(trpc.review.acceptFile.mutationOptions(options));
  const busy = rejectHunk.isPending || acceptHunk.isPending || rejectFile.isPending || acceptFile.isPending;
  // Which change is being rejected or accepted right now, to say so on its button.
  const working: HunkWork | null = rejectHunk.isPending
    ? { action: "reject", index: rejectHunk.variables?.hunkIndex ?? -1 }
    : acceptHunk.isPending
      ? { action: "accept", index: acceptHunk.variables?.hunkIndex ?? -1 }
      : null;
  const error = rejectHunk.error ?? acceptHunk.error ?? rejectFile.error ?? acceptFile.error;
  const data = file.data;
  const version = data?.version ?? null;
  const acceptBlocked = since
    ? "Accepting moves the session's review base: choose “since session start” to accept."
    : null;

  if (file.error) return <div className="center-message">{errorMessage(file.error)}</div>;
  if (!data) return <div className="center-message">Loading {path}…</div>;

  const hunks = data.hunks;
  return (
    <div className="changed-file" data-testid="changed-file" data-path={path} data-version={version ?? ""}>
      <div className="changed-file-bar">
        <span className="diff-path" title={path}>
          {ltr(data.oldPath ? `${data.oldPath} → ${path}` : path)}
        </span>
        <span className="muted">
          {data.binary ? "binary" : `${hunks.length} ${hunks.length === 1 ? "change" : "changes"}`}
        </span>
        <span className="spacer" />
        {data.status !== "deleted" && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => void tabs.open(path)}
            title={`Open ${path} in the editor`}
          >
            Open
          </button>
        )}
        {canWrite && (
          <>
            <button
              type="button"
              className="btn btn-sm"
              disabled={busy}
              onClick={() => rejectFile.mutate({ sessionId, path, expectedVersion: version, sinceCheckpointId: since })}
              data-testid="file-reject"
              title="Put the whole file back as it was"
              aria-busy={rejectFile.isPending || undefined}
            >
              {rejectFile.isPending ? "Rejecting…" : "Reject file"}
            </button>
            <button
              type="button"
              className="btn btn-primary btn-sm"
              disabled={busy || acceptBlocked !== null}
              onClick={() => acceptFile.mutate({ sessionId, path, expectedVersion: version })}
              data-testid="file-accept"
              title={acceptBlocked ?? "Keep the whole file as it is"}
              aria-busy={acceptFile.isPending || undefined}
            >
              {acceptFile.isPending ? "Accepting…" : "Accept file"}
            </button>
          </>
        )}
      </div>
      {error && (
        <div className="banner banner-warning" role="alert" data-testid="review-error">
          <span className="banner-text">{errorMessage(error)}</span>
        </div>
      )}
      {data.binary ? (
        <div className="center-message">Binary file or symbolic link: accept or reject it whole.</div>
      ) : (
        <ReviewDiff
          sessionId={sessionId}
          path={path}
          original={data.original ?? ""}
          current={data.current ?? ""}
          hunks={hunks}
          canWrite={canWrite}
          busy={busy}
          working={working}
          acceptBlocked={acceptBlocked}
          onAccept={(hunk) => acceptHunk.mutate({ sessionId, path, hunkIndex: hunk.index, expectedVersion: version })}
          comments={review.comments.filter((c) => c.path === path)}
          me={me}
          canComment={canWrite}
          onAddComment={review.add}
          onDeleteComment={review.remove}
          onReject={(hunk) =>
            rejectHunk.mutate({
              sessionId,
              path,
              hunkIndex: hunk.index,
              expectedVersion: version,
              sinceCheckpointId: since,
            })
          }
        />
      )}
    </div>
  );
}
