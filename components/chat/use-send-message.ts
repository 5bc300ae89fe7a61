"use client";

import { useMutation } from "@tanstack/react-query";
import type { PendingImage } from "@/components/chat/composer-images";
import { useTRPC } from "@/components/trpc-provider";

/** Sends a message: its images are attached to the session first, then referred to by hash; `@` mentions go by name. */
export function useSendMessage() {
  const trpc = useTRPC();
  const attach = useMutation(trpc.session.attachImage.mutationOptions());
  const send = useMutation(trpc.session.send.mutationOptions());
  const mutateAsync = async (sessionId: string, text: string, images: PendingImage[] = [], mentions: string[] = []) => {
    const hashes: string[] = [];
    for (const image of images)
      hashes.push((await attach.mutateAsync({ sessionId, mediaType: image.mediaType, data: image.data })).hash);
    // The browser's time zone: schedules the agent creates from this message are read in it.
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return send.mutateAsync({
      sessionId,
      text,
      ...(timeZone ? { timeZone } : {}),
      ...(hashes.length ? { images: hashes } : {}),
      ...(mentions.length ? { mentions } : {}),
    });
  };
  return { mutateAsync, error: attach.error ?? send.error };
}
