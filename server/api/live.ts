import { TRPCError } from "@trpc/server";
import { endableStream } from "@/server/agent/event-stream";
import type { Presence, PresenceEntry, Watcher } from "@/server/bus/presence";
import type { LinkRevocations } from "@/server/bus/link-revocations";
import type { ShareLinkRow } from "@/server/db/repositories/share-links";

// Live subscriptions of people who watch a session: presence, and the end of a share link.

type LinkCaller = { role: string | null; link: ShareLinkRow | null; services: { linkRevocations: LinkRevocations } };

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * For a caller who is here only through a share link, ends `source` with a FORBIDDEN error the
 * moment the link is revoked or expires (the page then shows "revoked" / "expired"). Team members
 * keep their stream whatever happens to the link.
 */
export function untilLinkEnds<T>(caller: LinkCaller, source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  const link = caller.role === null ? caller.link : null;
  if (!link) return source;
  let cleanup = () => {};
  const ended = new Promise<TRPCError>((resolve) => {
    const stop = caller.services.linkRevocations.subscribe(link.id, () => resolve(new TRPCError({ code: "FORBIDDEN", message: "This share link was revoked." })));
    const timer = setTimeout(
      () => resolve(new TRPCError({ code: "FORBIDDEN", message: "This share link has expired." })),
      Math.min(Math.max(0, link.expiresAt.getTime() - Date.now()), MAX_TIMER_MS),
    );
    cleanup = () => {
      stop();
      clearTimeout(timer);
    };
  });
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      const step = await Promise.race([source.next(), ended]);
      if (step instanceof TRPCError) {
        cleanup();
        await source.return?.();
        throw step;
      }
      if (step.done) cleanup();
      return step;
    },
    async return() {
      cleanup();
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The session's watchers now and after every change, counting the subscriber as watching. */
export function presenceStream(presence: Presence, sessionId: string, viewer: Watcher, signal?: AbortSignal) {
  return endableStream(
    async function* (stop) {
      const queue: PresenceEntry[][] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = presence.subscribe(sessionId, (entries) => {
        queue.push(entries);
        wake?.();
      });
      const leave = presence.join(sessionId, viewer);
      const onStop = () => wake?.();
      stop.addEventListener("abort", onStop);
      try {
        while (!stop.aborted) {
          if (!queue.length) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = null;
            continue;
          }
          // Only the newest snapshot matters.
          const entries = queue.splice(0).at(-1)!;
          // A guest's key names its link: never sent.
          yield entries.map(({ key, userId, name, guest, typing }, i) => ({ key: userId ? key : `guest-${i}`, userId, name, guest, typing }));
        }
      } finally {
        stop.removeEventListener("abort", onStop);
        unsubscribe();
        leave();
      }
    },
    (entries) => entries,
    signal,
  );
}
