import { TRPCError } from "@trpc/server";
import { endableStream } from "@/server/agent/event-stream";
import type { Presence, PresenceEntry, Watcher } from "@/server/bus/presence";
import type { LinkRevocations } from "@/server/bus/link-revocations";
import type { AccessChanges, AccessHolder } from "@/server/bus/access-changes";
import type { ShareLinkRow } from "@/server/db/repositories/share-links";

// Live subscriptions: presence of people who watch a session, and their end when a share link ends
// or the caller's access is taken away.

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
  return endWhen(source, (end) => {
    const stop = caller.services.linkRevocations.subscribe(link.id, () => end(new TRPCError({ code: "FORBIDDEN", message: "This share link was revoked." })));
    const timer = setTimeout(
      () => end(new TRPCError({ code: "FORBIDDEN", message: "This share link has expired." })),
      Math.min(Math.max(0, link.expiresAt.getTime() - Date.now()), MAX_TIMER_MS),
    );
    return () => {
      stop();
      clearTimeout(timer);
    };
  });
}

/**
 * Ends `source` with the refusal `recheck` throws when a change concerning `holder` (their
 * membership, role or login session; the project or session deleted) takes their access away.
 * A stream whose access merely shrank but still allows it goes on.
 */
export function untilAccessEnds<T>(changes: AccessChanges, holder: AccessHolder, recheck: () => Promise<unknown>, source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  return endWhen(source, (end) =>
    changes.subscribe(holder, () => {
      recheck().catch((error: unknown) =>
        end(error instanceof TRPCError ? error : new TRPCError({ code: "FORBIDDEN", message: "Your access to this changed.", cause: error })),
      );
    }),
  );
}

/** `source`, until `watch` calls its `end` with an error: the next read then throws it. `watch` returns its cleanup. */
function endWhen<T>(source: AsyncIterableIterator<T>, watch: (end: (error: TRPCError) => void) => () => void): AsyncIterableIterator<T> {
  let cleanup = () => {};
  const ended = new Promise<TRPCError>((resolve) => {
    cleanup = watch(resolve);
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
