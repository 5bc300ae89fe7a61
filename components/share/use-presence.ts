"use client";

import { useMutation } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useCallback, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";

export type PresenceEntry = { key: string; userId: string | null; name: string; guest: boolean; typing: boolean };

/**
 * Who watches the session (this page counts while it is open) and who types. `onEnded` hears
 * the subscription's error: for a share-link page, a revoked or expired link.
 */
export function usePresence(sessionId: string, onEnded?: (message: string) => void) {
  const trpc = useTRPC();
  const [entries, setEntries] = useState<PresenceEntry[]>([]);
  useSubscription(
    trpc.session.presence.subscriptionOptions(
      { sessionId },
      { onData: (data) => setEntries(data as PresenceEntry[]), onError: (error) => onEnded?.(error.message) },
    ),
  );
  return entries;
}

/** Tells the others this person is typing: at most once every 2 s while they type. */
export function useTypingSignal(sessionId: string, enabled: boolean) {
  const trpc = useTRPC();
  const typing = useMutation(trpc.session.typing.mutationOptions());
  const last = useRef(0);
  return useCallback(() => {
    if (!enabled || Date.now() - last.current < 2_000) return;
    last.current = Date.now();
    typing.mutate({ sessionId, typing: true });
  }, [enabled, sessionId, typing]);
}
