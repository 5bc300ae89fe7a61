"use client";

import { useMutation } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage, gitErrorCode } from "@/components/ui/error-message";
import type { GitProgress } from "@/lib/git-schemas";

export type RemoteAction = "fetch" | "pull" | "push";

/**
 * Runs a fetch, pull or push with its progress: the page picks the operation's id, listens to it,
 * then starts it; Cancel stops git in its sandbox.
 */
export type OperationResult = {
  action: RemoteAction;
  pullRequestUrl?: string | null;
  canOpenPullRequest?: boolean;
  error?: string;
  gitError?: string;
};

export function useGitOperation(projectId: string, onSettled: (result: OperationResult) => void) {
  const trpc = useTRPC();
  const [running, setRunning] = useState<{ id: string; action: RemoteAction } | null>(null);
  const [progress, setProgress] = useState<GitProgress | null>(null);
  useSubscription(
    trpc.git.operation.subscriptionOptions(
      { operationId: running?.id ?? "00000000-0000-4000-8000-000000000000" },
      { enabled: running !== null, onData: (event) => event.kind === "progress" && setProgress(event) },
    ),
  );
  const options = { onSettled: () => (setRunning(null), setProgress(null)) };
  const fetch = useMutation(trpc.git.fetch.mutationOptions(options));
  const pull = useMutation(trpc.git.pull.mutationOptions(options));
  const push = useMutation(trpc.git.push.mutationOptions(options));
  const cancel = useMutation(trpc.git.cancel.mutationOptions());

  function start(action: RemoteAction) {
    if (running) return;
    const id = crypto.randomUUID();
    setRunning({ id, action });
    const done = (result: { pullRequestUrl?: string | null; canOpenPullRequest?: boolean }) =>
      onSettled({ action, ...result });
    const failed = (error: unknown) => onSettled({ action, error: errorMessage(error), gitError: gitErrorCode(error) });
    const input = { projectId, operationId: id };
    if (action === "push") push.mutateAsync(input).then(done, failed);
    else (action === "fetch" ? fetch : pull).mutateAsync(input).then(() => done({}), failed);
  }

  return {
    running: running?.action ?? null,
    progress,
    start,
    cancel: () => running && cancel.mutate({ operationId: running.id }),
  };
}
