"use client";

import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

/**
 * Opens a port's preview (at `path`) in a new tab through a one-time link. The tab is opened at
 * the click, so no pop-up blocker stops it, and without an opener, so the app cannot reach back.
 */
export function useOpenPreviewTab(projectId: string) {
  const trpc = useTRPC();
  const preview = useMutation(trpc.ports.preview.mutationOptions());
  const open = (port: number, path = "/") => {
    const tab = window.open("about:blank", "_blank");
    if (tab) tab.opener = null;
    preview.mutate(
      { projectId, port, path },
      {
        onSuccess: ({ url }) => {
          if (tab) tab.location.href = url;
        },
        onError: () => tab?.close(),
      },
    );
  };
  return { open, error: preview.error };
}
