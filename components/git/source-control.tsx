"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { BranchPicker } from "@/components/git/branch-picker";
import { ChangeList } from "@/components/git/change-list";
import { useGit } from "@/components/git/git-context";
import { GitHistory } from "@/components/git/git-history";
import { useGitOperation, type RemoteAction } from "@/components/git/use-git-operation";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";
import { RefreshIcon } from "@/components/ui/icons";
import { PullRequestDialog } from "@/components/git/pull-request-dialog";
import { RemoteBar } from "@/components/git/remote-bar";
import { parseRemoteUrl } from "@/lib/git-remote-url";
import "./source-control.css";

const ACTION_LABEL: Record<RemoteAction, string> = { fetch: "Fetching", pull: "Pulling", push: "Pushing" };

/** The Source Control view, in VS Code's shape: commit box, merge/staged/unstaged changes, sync, history. */
export function SourceControl() {
  const trpc = useTRPC();
  const git = useGit();
  const { projectId, scope, onMain, canWrite, canAdmin } = git;
  const status = git.status.data;
  const [message, setMessage] = useState("");
  const [amend, setAmend] = useState(false);
  const [discarding, setDiscarding] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<{
    text: string;
    link?: string;
    opened?: boolean;
    canOpen?: boolean;
    error?: boolean;
    credentialFor?: URL;
  } | null>(null);
  const [openingPr, setOpeningPr] = useState(false);
  const after = {
    onSettled: () => git.refresh(),
    onError: (error: unknown) => setNotice({ text: errorMessage(error), error: true }),
  };
  const stage = useMutation(trpc.git.stage.mutationOptions(after));
  const unstage = useMutation(trpc.git.unstage.mutationOptions(after));
  const discard = useMutation(trpc.git.discard.mutationOptions(after));
  const init = useMutation(trpc.git.init.mutationOptions(after));
  const finish = useMutation(trpc.git.finishMerge.mutationOptions(after));
  const commit = useMutation(
    trpc.git.commit.mutationOptions({
      ...after,
      onSuccess: () => {
        setMessage("");
        setAmend(false);
        setNotice(null);
      },
    }),
  );
  const lastMessage = useQuery(trpc.git.lastCommitMessage.queryOptions(scope, { enabled: amend }));
  const remote = useQuery(
    trpc.git.remote.queryOptions({ projectId }, { enabled: onMain && status?.repository === true }),
  );
  const operation = useGitOperation(projectId, (result) => {
    git.refresh();
    // The host refused (or was given no) credentials: offer to store one for exactly that host.
    const refused = result.gitError === "AUTH_FAILED" && remote.data?.url ? parseRemoteUrl(remote.data.url) : null;
    if (result.error) setNotice({ text: result.error, error: true, credentialFor: refused ?? undefined });
    else if (result.action === "push")
      setNotice({ text: "Pushed.", link: result.pullRequestUrl ?? undefined, canOpen: result.canOpenPullRequest });
    else setNotice({ text: result.action === "pull" ? "Pulled." : "Fetched." });
  });
  const busy = stage.isPending || unstage.isPending || discard.isPending || commit.isPending || finish.isPending;

  if (git.status.error) return <div className="center-message">{errorMessage(git.status.error)}</div>;
  if (!status) return <div className="center-message">Loading…</div>;
  if (!status.repository) {
    return (
      <div className="scm-empty" data-testid="scm-no-repository">
        <p>This project is not a git repository.</p>
        {canWrite && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={init.isPending}
            onClick={() => init.mutate(scope)}
            data-testid="scm-init"
          >
            Initialize Repository
          </button>
        )}
      </div>
    );
  }

  const doCommit = () => {
    if (!message.trim() || commit.isPending) return;
    commit.mutate({ ...scope, message, amend });
  };
  const changes = [
    ...status.changed,
    ...status.untracked.map((path) => ({ path, letter: "A" as const, untracked: true })),
  ];

  return (
    <div className="scm" data-testid="source-control">
      <div className="scm-toolbar">
        <BranchPicker />
        <span className="spacer" />
        {(onMain ? (["fetch", "pull", "push"] as const) : []).map((action) => (
          <button
            type="button"
            key={action}
            className="btn btn-sm btn-ghost"
            disabled={!canWrite || operation.running !== null}
            onClick={() => {
              setNotice(null);
              operation.start(action);
            }}
            title={
              action === "push"
                ? "Push the branch (and set its upstream)"
                : action === "pull"
                  ? `Pull (${status.pullMode})`
                  : "Fetch from origin"
            }
            data-testid={`scm-${action}`}
          >
            {action === "fetch"
              ? "Fetch"
              : action === "pull"
                ? `Pull${status.behind ? ` ↓${status.behind}` : ""}`
                : `Push${status.ahead ? ` ↑${status.ahead}` : ""}`}
          </button>
        ))}
        <button
          type="button"
          className="icon-btn"
          title="Refresh"
          aria-label="Refresh Source Control"
          onClick={git.refresh}
        >
          <RefreshIcon />
        </button>
      </div>
      {onMain ? (
        <RemoteBar projectId={projectId} canAdmin={canAdmin} />
      ) : (
        <p className="hint scm-tree-note" data-testid="scm-tree-note">
          This is a session's worktree: commits here go on its branch. Update it from its base, push it or merge it from
          the session's header.
        </p>
      )}
      {operation.running && (
        <div className="scm-progress" role="status" data-testid="scm-progress">
          <span>
            {ACTION_LABEL[operation.running]}…
            {operation.progress
              ? ` ${operation.progress.phase}${operation.progress.percent !== null ? ` ${operation.progress.percent}%` : ""}`
              : ""}
          </span>
          <div className="scm-progress-bar">
            <div style={{ width: `${operation.progress?.percent ?? 5}%` }} />
          </div>
          <button type="button" className="btn btn-sm" onClick={operation.cancel}>
            Cancel
          </button>
        </div>
      )}
      {notice && (
        <div
          className={notice.error ? "banner banner-warning" : "banner banner-info"}
          role={notice.error ? "alert" : "status"}
          data-testid="scm-notice"
        >
          {notice.credentialFor && (
            <a
              className="btn btn-sm btn-primary scm-notice-action"
              href={`/account?${new URLSearchParams({ host: notice.credentialFor.host, kind: notice.credentialFor.protocol === "ssh:" ? "ssh-key" : "token" })}#git-credentials`}
              target="_blank"
              rel="noreferrer"
              title={`Store a ${notice.credentialFor.protocol === "ssh:" ? "ssh key" : "token"} for ${notice.credentialFor.host} in your account, then push again`}
              data-testid="scm-add-credential"
            >
              {notice.credentialFor.protocol === "ssh:" ? "Add an ssh key" : "Add a token"} for{" "}
              {notice.credentialFor.host}
            </a>
          )}
          <span className="banner-text">{notice.text}</span>
          {notice.link && (
            <a
              className="btn btn-sm"
              href={notice.link}
              title={notice.link}
              target="_blank"
              rel="noreferrer"
              data-testid="scm-pull-request-link"
            >
              {notice.opened ? "View pull request" : "Create pull request"}
            </a>
          )}
          {notice.canOpen && canWrite && (
            <button
              type="button"
              className="btn btn-sm btn-primary"
              onClick={() => setOpeningPr(true)}
              data-testid="scm-open-pull-request"
            >
              Open pull request
            </button>
          )}
        </div>
      )}
      {status.operation && (
        <div className="banner banner-warning" data-testid="scm-merge-banner">
          <span className="banner-text">
            {status.operation === "merge" ? "Merging" : "Rebasing"}: resolve the conflicts in the editor, stage each
            file, then {status.operation === "merge" ? "commit" : "continue"}.
          </span>
          {canWrite && (
            <>
              <button
                type="button"
                className="btn btn-sm"
                disabled={busy}
                onClick={() => finish.mutate({ ...scope, action: "abort" })}
                data-testid="scm-merge-abort"
              >
                Abort
              </button>
              {status.operation === "rebase" && (
                <button
                  type="button"
                  className="btn btn-sm btn-primary"
                  disabled={busy || status.conflicted.length > 0}
                  onClick={() => finish.mutate({ ...scope, action: "continue" })}
                >
                  Continue
                </button>
              )}
            </>
          )}
        </div>
      )}
      {canWrite && (
        <div className="scm-commit">
          <textarea
            className="input scm-message"
            placeholder={`Message (${typeof navigator !== "undefined" && /Mac/.test(navigator.platform) ? "⌘" : "Ctrl"}+Enter to commit on '${status.branch ?? "detached HEAD"}')`}
            value={amend && !message && lastMessage.data ? lastMessage.data : message}
            onChange={(event) => setMessage(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                doCommit();
              }
            }}
            aria-label="Commit message"
            data-testid="scm-message"
            rows={3}
          />
          <div className="row">
            <label className="scm-amend">
              <input
                type="checkbox"
                checked={amend}
                onChange={(event) => {
                  setAmend(event.target.checked);
                  if (event.target.checked && !message && lastMessage.data) setMessage(lastMessage.data);
                }}
                data-testid="scm-amend"
              />
              Amend
            </label>
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-primary btn-sm"
              disabled={!message.trim() || commit.isPending}
              onClick={doCommit}
              data-testid="scm-commit"
            >
              {commit.isPending ? "Committing…" : amend ? "Commit (Amend)" : "Commit"}
            </button>
          </div>
        </div>
      )}
      <div className="scm-lists">
        <ChangeList
          section="merge"
          title="Merge Changes"
          rows={status.conflicted}
          canWrite={canWrite}
          busy={busy}
          onStage={(paths) => stage.mutate({ ...scope, paths })}
        />
        <ChangeList
          section="staged"
          title="Staged Changes"
          rows={status.staged}
          canWrite={canWrite}
          busy={busy}
          onUnstage={(paths) => unstage.mutate({ ...scope, paths })}
        />
        <ChangeList
          section="changes"
          title="Changes"
          rows={changes}
          canWrite={canWrite}
          busy={busy}
          onStage={(paths) => stage.mutate({ ...scope, paths })}
          onDiscard={(paths) => setDiscarding(paths)}
        />
        {status.staged.length + changes.length + status.conflicted.length === 0 && (
          <p className="hint scm-clean" data-testid="scm-clean">
            No changes on {status.branch ?? "detached HEAD"}.
          </p>
        )}
        <GitHistory />
      </div>
      {openingPr && (
        <PullRequestDialog
          projectId={projectId}
          onClose={() => setOpeningPr(false)}
          onOpened={(url) => {
            setOpeningPr(false);
            setNotice({ text: "Pull request opened.", link: url, opened: true });
          }}
        />
      )}
      {discarding && (
        <ConfirmDialog
          title={
            discarding.length === 1
              ? `Discard changes in ${discarding[0]}?`
              : `Discard changes in ${discarding.length} files?`
          }
          confirmLabel="Discard"
          danger
          busy={discard.isPending}
          onCancel={() => setDiscarding(null)}
          onConfirm={() => {
            discard.mutate({ ...scope, paths: discarding });
            setDiscarding(null);
          }}
        >
          Their changes will be lost (files git does not track yet are deleted). This cannot be undone.
        </ConfirmDialog>
      )}
    </div>
  );
}
