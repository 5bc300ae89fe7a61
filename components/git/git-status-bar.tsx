"use client";

import { useGit } from "@/components/git/git-context";

/** The status bar's branch and how far it is ahead of and behind its upstream. */
export function GitStatusBar({ onOpen }: { onOpen: () => void }) {
  const { status } = useGit();
  const data = status.data;
  if (!data?.repository) return null;
  return (
    <button
      type="button"
      className="statusbar-button"
      onClick={onOpen}
      title="Source Control (Ctrl+Shift+G)"
      data-testid="statusbar-branch"
    >
      ⎇ {data.branch ?? `(${data.oid?.slice(0, 7) ?? "detached"})`}
      {data.upstream && (
        <span data-testid="statusbar-sync">
          {" "}
          ↓{data.behind} ↑{data.ahead}
        </span>
      )}
      {data.operation && <span> · {data.operation === "merge" ? "MERGING" : "REBASING"}</span>}
    </button>
  );
}
