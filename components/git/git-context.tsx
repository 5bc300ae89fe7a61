"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useMemo, type ReactNode } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { useTreeInput } from "@/components/ui/tree-context";

/** What the explorer shows beside a file: VS Code's letters and colours. */
export type GitDecoration = {
  letter: string;
  kind: "modified" | "added" | "untracked" | "deleted" | "conflict" | "renamed" | "ignored";
};

function useGitModel(projectId: string, canWrite: boolean, canAdmin: boolean, readable: boolean) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The tree the IDE shows (?tree=): Source Control's local procedures work in it; fetch, pull,
  // push and the remote are the main tree's (a session's branch is pushed from its header).
  const tree = useTreeInput().tree;
  const scope = useMemo(() => (tree ? { projectId, tree } : { projectId }), [projectId, tree]);
  const onMain = !tree;
  // File changes refresh it (components/ide/use-file-changes.ts); the interval catches commits made in the terminal.
  // Asked once the project is known to be readable: nothing on the first screen waits for it, and a
  // project that is not found (or no longer shared) is not polled.
  const status = useQuery(
    trpc.git.status.queryOptions(scope, { enabled: readable, refetchInterval: 15_000, refetchOnWindowFocus: true }),
  );
  const refresh = useCallback(() => {
    void queryClient.invalidateQueries(trpc.git.status.queryFilter({ projectId }));
    void queryClient.invalidateQueries(trpc.git.log.queryFilter({ projectId }));
    void queryClient.invalidateQueries(trpc.git.branches.queryFilter({ projectId }));
    void queryClient.invalidateQueries(trpc.git.diff.queryFilter({ projectId }));
    void queryClient.invalidateQueries(trpc.git.remote.queryFilter({ projectId }));
    // What New session offers (a branch of its own needs a repository with a commit) follows too.
    void queryClient.invalidateQueries(trpc.tree.options.queryFilter({ projectId }));
  }, [queryClient, trpc, projectId]);

  const decorations = useMemo(() => {
    const map = new Map<string, GitDecoration>();
    const data = status.data;
    if (!data?.repository) return { files: map, ignored: [] as string[] };
    const put = (path: string, decoration: GitDecoration) => map.set(path, decoration);
    for (const f of data.staged)
      put(f.path, {
        letter: f.letter,
        kind: f.letter === "A" ? "added" : f.letter === "D" ? "deleted" : f.letter === "R" ? "renamed" : "modified",
      });
    for (const f of data.changed) put(f.path, { letter: f.letter, kind: f.letter === "D" ? "deleted" : "modified" });
    for (const p of data.untracked) put(p, { letter: "U", kind: "untracked" });
    for (const f of data.conflicted) put(f.path, { letter: "!", kind: "conflict" });
    return { files: map, ignored: data.ignored };
  }, [status.data]);

  /** A file's decoration; a folder takes the colour of the changes inside it (no letter). */
  const decorationOf = useCallback(
    (path: string, isFolder: boolean): GitDecoration | null => {
      const own = decorations.files.get(path);
      if (own) return own;
      if (decorations.ignored.some((i) => path === i || path.startsWith(`${i}/`)))
        return { letter: "", kind: "ignored" };
      if (!isFolder) return null;
      for (const [p, d] of decorations.files)
        if (p.startsWith(`${path}/`)) return { letter: "", kind: d.kind === "deleted" ? "modified" : d.kind };
      return null;
    },
    [decorations],
  );

  return { projectId, scope, onMain, canWrite, canAdmin, status, refresh, decorationOf };
}

type GitModel = ReturnType<typeof useGitModel>;
const GitContext = createContext<GitModel | null>(null);

/** `canAdmin`: the caller is one of the project's admins, who choose its remote. */
export function GitProvider({
  projectId,
  canWrite,
  canAdmin,
  readable,
  children,
}: {
  projectId: string;
  canWrite: boolean;
  canAdmin: boolean;
  readable: boolean;
  children: ReactNode;
}) {
  const model = useGitModel(projectId, canWrite, canAdmin, readable);
  return <GitContext.Provider value={model}>{children}</GitContext.Provider>;
}

export function useGit(): GitModel {
  const model = useContext(GitContext);
  if (!model) throw new Error("useGit needs a <GitProvider>");
  return model;
}

/** Outside the IDE (the share page) there is no provider: no decorations. */
export function useGitDecorations() {
  return useContext(GitContext)?.decorationOf ?? null;
}

/** Whether git lists `path` as conflicted (false outside the IDE). */
export function useGitConflicted(path: string): boolean {
  const data = useContext(GitContext)?.status.data;
  return !!data?.repository && data.conflicted.some((f) => f.path === path);
}
