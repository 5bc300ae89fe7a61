"use client";

import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/components/trpc-provider";

// A session's review comments, live for everyone looking at its review (comment.watch), and what
// people do with them: add one on a line, delete their own, send the open ones to the agent.

export type ReviewComment = inferRouterOutputs<AppRouter>["comment"]["list"][number];
export type NewComment = { path: string; line: number; side: "current" | "original"; body: string };

export function useReviewComments(sessionId: string, since: string | undefined) {
  const trpc = useTRPC();
  const [comments, setComments] = useState<ReviewComment[]>([]);
  useSubscription(trpc.comment.watch.subscriptionOptions({ sessionId }, { onData: setComments }));
  const add = useMutation(trpc.comment.add.mutationOptions());
  const remove = useMutation(trpc.comment.delete.mutationOptions());
  const send = useMutation(trpc.comment.send.mutationOptions());
  const open = comments.filter((c) => !c.sentAt && !c.addressedAt);
  return {
    comments,
    open,
    add: (comment: NewComment) => add.mutateAsync({ sessionId, sinceCheckpointId: since, ...comment }),
    remove: (commentId: string) => remove.mutate({ sessionId, commentId }),
    send: () => send.mutate({ sessionId, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
    sending: send.isPending,
    error: add.error ?? remove.error ?? send.error,
  };
}

export type ReviewComments = ReturnType<typeof useReviewComments>;
