"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { coalesce } from "@/components/ui/coalesce";

const BURST_MS = 150;

/**
 * Refetches what the Changes view and the editor's change marks show: files changed on disk, or
 * the session's log moved the review base. At once after a quiet spell (a save, a restore or an
 * accept shows without a fixed delay), then once per 150 ms while a burst (the agent writing many
 * files) lasts.
 */
export function useReviewRefresh(): () => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = useMemo(
    () =>
      coalesce(() => {
        void queryClient.invalidateQueries(trpc.review.pathFilter());
        void queryClient.invalidateQueries(trpc.checkpoint.pathFilter());
      }, BURST_MS),
    [queryClient, trpc],
  );
  useEffect(() => () => refresh.cancel(), [refresh]);
  return useCallback(() => refresh.call(), [refresh]);
}
