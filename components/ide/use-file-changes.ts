"use client";

import { useQueryClient } from "@tanstack/react-query";
import { skipToken } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useFileBuffers } from "@/components/editor/open-files-context";
import { coalesce } from "@/components/ui/coalesce";
import { parentOf } from "@/components/ui/paths";
import type { QuickOpenIndex } from "@/components/ui/quick-open-index";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { REREAD_ALL } from "@/lib/file-changes";
import { useTreeInput } from "@/components/ui/tree-context";

/** Where the stream starts: the oldest cursor of the listings shown so far, or null (read everything again). */
function oldestCursor(cursors: string[]): string | null {
  const [epoch] = cursors[0]!.split(":");
  let oldest = cursors[0]!;
  for (const cursor of cursors) {
    const [otherEpoch, seq] = cursor.split(":");
    // Another watcher's cursor, or one taken before the watcher was ready: no common position.
    if (otherEpoch !== epoch || seq === "") return null;
    if (Number(seq) < Number(oldest.split(":")[1])) oldest = cursor;
  }
  return oldest;
}

/**
 * The cursor fs.changes starts from: the explorer's first listings carry the position of the
 * server's change stream before they were read, and the subscription replays what came after,
 * so a file made between the listing and the subscription shows. Taken once per project and tree,
 * when the first listing is in; later listings are read after it, and reconnects resume from the
 * last change received (tRPC's client sends its id as `lastEventId`).
 */
function useStartCursor(projectId: string, tree: { tree?: string }): { cursor: string | null } | null {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const treeName = tree.tree;
  const key = `${projectId}\0${treeName ?? ""}`;
  const [start, setStart] = useState<{ key: string; cursor: string | null } | null>(null);
  const started = start?.key === key;
  useEffect(() => {
    if (started) return;
    const take = () => {
      const listings = queryClient.getQueriesData<{ cursor: string }>({
        ...trpc.fs.tree.queryFilter({ projectId }),
        // This tree's listings only: another tree is another watcher.
        predicate: (query) => (query.queryKey[1] as { input?: { tree?: string } }).input?.tree === treeName,
      });
      const cursors = listings.flatMap(([, listing]) => (listing ? [listing.cursor] : []));
      if (cursors.length > 0) setStart({ key, cursor: oldestCursor(cursors) });
    };
    take();
    return queryClient.getQueryCache().subscribe(take);
  }, [started, key, queryClient, trpc, projectId, treeName]);
  return started ? { cursor: start.cursor } : null;
}

/**
 * Follows the project's files on disk: open tabs reload or flag a conflict, and the explorer
 * refetches the folders whose entries changed (batched, so a burst of changes is one refetch each),
 * Source Control reads git's status again, and quick open's paths follow files made and deleted.
 * Returns whether the live connection is up.
 */
export function useFileChanges(projectId: string, quickOpen: QuickOpenIndex): "live" | "connecting" | "offline" {
  const trpc = useTRPC();
  const tree = useTreeInput();
  const queryClient = useQueryClient();
  const buffers = useFileBuffers();
  const refreshReview = useReviewRefresh();
  const folders = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Source Control's lists and the explorer's decorations follow the disk: at once after a quiet
  // spell (a save shows in Source Control without waiting), then once per 300 ms while a burst lasts.
  const gitStatus = useMemo(
    () => coalesce(() => void queryClient.invalidateQueries(trpc.git.status.queryFilter({ projectId })), 300),
    [queryClient, trpc, projectId],
  );
  // The listing is read again (it honours .gitignore, which the change events cannot): at once for
  // the composer's @-completion, which shows it; at the next opening for quick open, whose worker's
  // paths follow the events meanwhile.
  const staleFileList = useCallback(
    () => void queryClient.invalidateQueries(trpc.fs.files.queryFilter({ projectId })),
    [queryClient, trpc, projectId],
  );

  /** Reads the tree and the open files again: changes may have been missed. */
  const catchUp = useCallback(() => {
    void queryClient.invalidateQueries(trpc.fs.tree.queryFilter({ projectId }));
    staleFileList();
    for (const path of buffers.getSnapshot().keys()) void buffers.diskChanged({ type: "change", path });
    refreshReview();
  }, [queryClient, trpc, projectId, buffers, refreshReview, staleFileList]);

  const from = useStartCursor(projectId, tree);
  const subscription = useSubscription(
    trpc.fs.changes.subscriptionOptions(from ? { projectId, ...tree, lastEventId: from.cursor } : skipToken, {
      onData: ({ data: change }) => {
        if (change.path === REREAD_ALL.path) return catchUp(); // the server may have missed changes
        void buffers.diskChanged(change);
        refreshReview(); // the Changes view and the editor's agent line marks follow the disk
        gitStatus.call();
        if (change.type === "change") return;
        quickOpen.apply(change);
        folders.current.add(parentOf(change.path));
        clearTimeout(timer.current);
        timer.current = setTimeout(() => {
          for (const path of folders.current)
            void queryClient.invalidateQueries(trpc.fs.tree.queryFilter({ projectId, path }));
          folders.current.clear();
          staleFileList();
        }, 120);
      },
    }),
  );

  const live = subscription.status === "pending";
  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => () => gitStatus.cancel(), [gitStatus]);

  if (live) return "live";
  return subscription.status === "error" ? "offline" : "connecting";
}
