"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { useFileBuffers } from "@/components/editor/open-files-context";
import { coalesce } from "@/components/ui/coalesce";
import { parentOf } from "@/components/ui/paths";
import type { QuickOpenIndex } from "@/components/ui/quick-open-index";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { REREAD_ALL } from "@/lib/fs-schemas";
import { useTreeInput } from "@/components/ui/tree-context";

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

  const subscription = useSubscription(
    trpc.fs.changes.subscriptionOptions(
      { projectId, ...tree },
      {
        onData: (change) => {
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
      },
    ),
  );

  // After a reconnect, catch up with whatever changed while the connection was down.
  const everLive = useRef(false);
  const previous = useRef(subscription.status);
  const live = subscription.status === "pending";
  useEffect(() => {
    if (live && previous.current !== "pending") {
      if (everLive.current) catchUp();
      everLive.current = true;
    }
    previous.current = subscription.status;
  }, [live, subscription.status, catchUp]);

  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => () => gitStatus.cancel(), [gitStatus]);

  if (live) return "live";
  return subscription.status === "error" ? "offline" : "connecting";
}
