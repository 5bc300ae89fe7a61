"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";
import { formatBytes } from "@/components/ui/format-bytes";

// A session on a branch of its own (docs/git.md): its branch, base and worktree size under the
// session's header, and how it ends: "Merge into <base>" in the main tree, or "Discard" (worktree
// and branch go after a confirmation that names what is lost; the session's log stays).

export function SessionBranch({
  projectId,
  sessionId,
  canWrite,
}: {
  projectId: string;
  sessionId: string;
  canWrite: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tree = useQuery(trpc.tree.ofSession.queryOptions({ sessionId }));
  const [discarding, setDiscarding] = useState(false);
  const refresh = () => {
    void queryClient.invalidateQueries(trpc.tree.ofSession.queryFilter({ sessionId }));
    void queryClient.invalidateQueries(trpc.tree.list.queryFilter({ projectId }));
    void queryClient.invalidateQueries(trpc.git.status.queryFilter({ projectId }));
  };
  const merge = useMutation(trpc.tree.merge.mutationOptions({ onSettled: refresh }));
  const discard = useMutation(
    trpc.tree.discard.mutationOptions({
      onSuccess: () => setDiscarding(false),
      onSettled: refresh,
    }),
  );
  const data = tree.data;
  if (!data) return null;
  const own = data.sessionId === sessionId;
  const open = data.state !== "discarded";
  return (
    <div className="session-branch" data-testid="session-branch" data-state={data.state}>
      <span title={`Started from ${data.baseRef} at ${data.baseCommit.slice(0, 8)}`}>
        ⎇ <span className="session-branch-name">{data.branch}</span> from {data.baseRef}
      </span>
      {data.sizeBytes !== null && <span title="The worktree's files on disk">· {formatBytes(data.sizeBytes)}</span>}
      {data.state === "merged" && <span className="status-pill">merged</span>}
      {data.state === "discarded" && <span className="status-pill">discarded</span>}
      <span className="spacer" />
      {canWrite && own && open && (
        <>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={merge.isPending}
            onClick={() => merge.mutate({ sessionId })}
            data-testid="session-merge"
            title={`Commit what the session left, then merge ${data.branch} into ${data.baseRef} in the main tree`}
          >
            {merge.isPending ? "Merging…" : `Merge into ${data.baseRef}`}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => setDiscarding(true)}
            data-testid="session-discard"
          >
            Discard
          </button>
        </>
      )}
      {merge.error && <div className="error-text">{errorMessage(merge.error)}</div>}
      {merge.data && (
        <div className="hint" data-testid="session-merged">
          {merge.data.fastForward ? "Fast-forwarded" : "Merged"} {merge.data.branch} into {merge.data.base}.
        </div>
      )}
      {discarding && (
        <DiscardDialog
          sessionId={sessionId}
          busy={discard.isPending}
          error={discard.error ? errorMessage(discard.error) : null}
          onConfirm={() => discard.mutate({ sessionId })}
          onCancel={() => setDiscarding(false)}
        />
      )}
    </div>
  );
}

function DiscardDialog(props: {
  sessionId: string;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const preview = useQuery(trpc.tree.discardPreview.queryOptions({ sessionId: props.sessionId }));
  const p = preview.data;
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  return (
    <ConfirmDialog
      title="Discard this session's branch?"
      confirmLabel="Discard branch"
      danger
      busy={props.busy || !p}
      error={props.error ?? (preview.error ? errorMessage(preview.error) : null)}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      {p ? (
        <p data-testid="discard-summary">
          The worktree and the branch <strong>{p.branch}</strong> are removed
          {p.commits || p.uncommittedFiles
            ? `, and with them ${[
                p.commits ? `${plural(p.commits, "commit")} not in its base` : "",
                p.uncommittedFiles ? `${plural(p.uncommittedFiles, "uncommitted file")}` : "",
              ]
                .filter(Boolean)
                .join(" and ")}`
            : " (nothing on it is lost: it holds no work that is not in its base)"}
          . The session's conversation stays readable.
        </p>
      ) : (
        <p>Looking at what would be lost…</p>
      )}
    </ConfirmDialog>
  );
}
