"use client";

import { useGit } from "@/components/git/git-context";

/** How many files Source Control lists (staged, changed, untracked, conflicted), beside its tab. */
export function ChangeCount() {
  const { status } = useGit();
  const count = status.data?.repository
    ? status.data.staged.length +
      status.data.changed.length +
      status.data.untracked.length +
      status.data.conflicted.length
    : 0;
  return count > 0 ? <span className="scm-count">{count}</span> : null;
}
