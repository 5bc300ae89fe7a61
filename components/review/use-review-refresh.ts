"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import { useTRPC } from "@/components/trpc-provider";

const DEBOUNCE_MS = 150;

/**
 * Refetches what the Changes view and the editor's change marks show: files changed on disk, or
 * the session's log moved the review base. Bursts (the agent writing many files) refetch once.
 */
export function useReviewRefresh(): () => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      void queryClient.invalidateQueries(trpc.review.pathFilter());
      void queryClient.invalidateQueries(trpc.checkpoint.pathFilter());
    }, DEBOUNCE_MS);
  }, [queryClient, trpc]);
}
