"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";
import { formatBytes } from "@/components/ui/format-bytes";
import { resolveConflictsMessage } from "@/lib/trees";

// A session on a branch of its own (docs/git.md): its branch, base and worktree size under the
// session's header; "Update from <base>" (conflicts stay in its worktree: resolve them in that
// tree's Source Control, or ask the agent); and how it ends: "Merge into <base>" in the main tree,
// "Push and open pull request" (its link stays here and on the board's card), or "Discard"
// (worktree and branch go after a confirmation that names what is lost; the session's log stays).

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
  const router = useRouter();
  const merge = useMutation(trpc.tree.merge.mutationOptions({ onSettled: refresh }));
  const update = useMutation(trpc.tree.update.mutationOptions({ onSettled: refresh }));
  const publish = useMutation(trpc.tree.pushAndOpenPullRequest.mutationOptions({ onSettled: refresh }));
  const ask = useMutation(trpc.session.send.mutationOptions());
  // The worktree's own status: a merge left mid-way (by Update, or after a reload) lists its conflicts.
  const status = useQuery(
    trpc.git.status.queryOptions(
      { projectId, tree: sessionId },
      { enabled: canWrite && !!tree.data && tree.data.state !== "discarded", refetchInterval: 15_000 },
    ),
  );
  // What git says now (a resolution in Source Control clears it), else what the update returned.
  const conflicted = status.data?.repository
    ? status.data.conflicted.map((f) => f.path)
    : (update.data?.conflicted ?? []);
  const failure = update.error ?? publish.error ?? ask.error ?? merge.error;
  const showTree = () => {
    const url = new URL(window.location.href);
    url.searchParams.set("tree", sessionId);
    router.replace(`${url.pathname}${url.search}`);
  };
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
      {data.pullRequestUrl && (
        <a href={data.pullRequestUrl} target="_blank" rel="noreferrer" data-testid="session-pull-request">
          Pull request
        </a>
      )}
      {data.state === "merged" && <span className="status-pill">merged</span>}
      {data.state === "discarded" && <span className="status-pill">discarded</span>}
      <span className="spacer" />
      {canWrite && own && open && (
        <>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={update.isPending || conflicted.length > 0}
            onClick={() => update.mutate({ sessionId })}
            data-testid="session-update"
            title={`Commit what the session left, then merge ${data.baseRef}'s new commits into ${data.branch}`}
          >
            {update.isPending ? "Updating…" : `Update from ${data.baseRef}`}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={publish.isPending}
            onClick={() => publish.mutate({ sessionId, operationId: crypto.randomUUID() })}
            data-testid="session-push"
            title={`Commit what the session left, push ${data.branch} and open a pull request into ${data.baseRef}`}
          >
            {publish.isPending ? "Pushing…" : data.pullRequestUrl ? "Push" : "Push and open pull request"}
          </button>
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
      {conflicted.length > 0 && canWrite && own && (
        <div className="session-conflicts" data-testid="session-conflicts">
          <span>
            {data.branch} is mid-merge with {data.baseRef}: conflicts in {conflicted.join(", ")}.
          </span>
          <button type="button" className="btn btn-ghost btn-sm" onClick={showTree} data-testid="session-show-tree">
            Resolve in Source Control
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={ask.isPending || ask.isSuccess}
            onClick={() => ask.mutate({ sessionId, text: resolveConflictsMessage(data.baseRef, conflicted) })}
            data-testid="session-ask-resolve"
          >
            {ask.isSuccess ? "Asked the agent" : "Ask the agent to resolve"}
          </button>
        </div>
      )}
      {update.data && update.data.conflicted.length === 0 && (
        <div className="hint" data-testid="session-updated">
          {update.data.upToDate
            ? `${data.branch} already has everything in ${data.baseRef}.`
            : `Merged ${data.baseRef} into ${data.branch}.`}
        </div>
      )}
      {publish.data && !publish.data.pullRequest && (
        <div className="hint" data-testid="session-pushed">
          Pushed {publish.data.branch}.{publish.data.note ? ` ${publish.data.note}` : ""}{" "}
          {publish.data.createUrl && (
            <a href={publish.data.createUrl} target="_blank" rel="noreferrer">
              Create the pull request
            </a>
          )}
        </div>
      )}
      {failure && <div className="error-text">{errorMessage(failure)}</div>}
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
