"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import { useGit } from "@/components/git/git-context";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";
import "./source-control.css";

const GitDiffEditor = dynamic(() => import("@/components/git/git-diff-editor"), {
  ssr: false,
  loading: () => <div className="center-message">Loading diff…</div>,
});

/** The hunks of a unified diff: each one's header and the lines it adds and removes. */
function hunksOf(patch: string) {
  const hunks: Array<{ header: string; added: number; removed: number }> = [];
  for (const line of patch.split("\n")) {
    if (line.startsWith("@@ ")) hunks.push({ header: line.replace(/^(@@[^@]*@@).*$/, "$1"), added: 0, removed: 0 });
    else if (hunks.length && line.startsWith("+")) hunks.at(-1)!.added++;
    else if (hunks.length && line.startsWith("-")) hunks.at(-1)!.removed++;
  }
  return hunks;
}

/** One file's change (working tree against index, or index against HEAD) with per-hunk stage, unstage and discard. */
export function GitDiffView({ path, side }: { path: string; side: "worktree" | "index" }) {
  const trpc = useTRPC();
  const git = useGit();
  const diff = useQuery(trpc.git.diff.queryOptions({ ...git.scope, path, side }));
  const [discarding, setDiscarding] = useState<number | null>(null);
  const apply = useMutation(trpc.git.applyHunk.mutationOptions({ onSettled: () => git.refresh() }));
  const hunks = diff.data ? hunksOf(diff.data.patch) : [];
  const run = (hunkIndex: number, action: "stage" | "unstage" | "discard") =>
    diff.data && apply.mutate({ ...git.scope, path, hunkIndex, action, expectedDiff: diff.data.patch });

  return (
    <div className="git-diff-view" data-testid="git-diff-view">
      <div className="breadcrumbs">
        <span data-testid="git-diff-title">
          {path} ({side === "index" ? "Index" : "Working Tree"})
        </span>
      </div>
      {hunks.length > 0 && git.canWrite && (
        <ul className="git-hunks" aria-label="Changes in this file">
          {hunks.map((hunk, index) => (
            <li key={index} className="git-hunk" data-testid={`git-hunk-${index}`}>
              <code>{hunk.header}</code>
              <span className="git-hunk-stats">
                <span className="added">+{hunk.added}</span> <span className="removed">−{hunk.removed}</span>
              </span>
              <span className="spacer" />
              {side === "worktree" ? (
                <>
                  <button
                    type="button"
                    className="btn btn-sm"
                    disabled={apply.isPending}
                    onClick={() => setDiscarding(index)}
                    data-testid={`git-hunk-discard-${index}`}
                  >
                    Discard
                  </button>
                  <button
                    type="button"
                    className="btn btn-sm btn-primary"
                    disabled={apply.isPending}
                    onClick={() => run(index, "stage")}
                    data-testid={`git-hunk-stage-${index}`}
                  >
                    Stage
                  </button>
                </>
              ) : (
                <button
                  type="button"
                  className="btn btn-sm"
                  disabled={apply.isPending}
                  onClick={() => run(index, "unstage")}
                  data-testid={`git-hunk-unstage-${index}`}
                >
                  Unstage
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {apply.error && <div className="banner banner-warning">{errorMessage(apply.error)}</div>}
      {diff.error ? (
        <div className="center-message">{errorMessage(diff.error)}</div>
      ) : !diff.data ? (
        <div className="center-message">Loading diff…</div>
      ) : diff.data.hunks === 0 && diff.data.original === diff.data.modified ? (
        <div className="center-message" data-testid="git-diff-empty">
          No changes left in {path} here.
        </div>
      ) : (
        <div className="git-diff-editor">
          <GitDiffEditor path={path} side={side} original={diff.data.original} modified={diff.data.modified} />
        </div>
      )}
      {discarding !== null && (
        <ConfirmDialog
          title="Discard this change?"
          confirmLabel="Discard"
          danger
          onCancel={() => setDiscarding(null)}
          onConfirm={() => {
            run(discarding, "discard");
            setDiscarding(null);
          }}
        >
          The change {hunks[discarding]?.header} in {path} will be lost. This cannot be undone.
        </ConfirmDialog>
      )}
    </div>
  );
}
