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
    const stop = caller.services.linkRevocations.subscribe(link.id, () =>
      end(new TRPCError({ code: "FORBIDDEN", message: "This share link was revoked." })),
    );
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
export function untilAccessEnds<T>(
  changes: AccessChanges,
  holder: AccessHolder,
  recheck: () => Promise<unknown>,
  source: AsyncIterableIterator<T>,
): AsyncIterableIterator<T> {
  return endWhen(source, (end) =>
    changes.subscribe(holder, () => {
      recheck().catch((error: unknown) =>
        end(
          error instanceof TRPCError
            ? error
            : new TRPCError({ code: "FORBIDDEN", message: "Your access to this changed.", cause: error }),
        ),
      );
    }),
  );
}

/**
 * `source`, until `watch` calls its `end` with an error: the read waiting then (or the next one)
 * throws it. `watch` returns its cleanup.
 *
 * Each read races the source against the end by hand rather than with Promise.race on one
 * promise of the end: that promise stays pending for the stream's whole life, and every race
 * would leave a reaction on it, one per event a viewer ever receives (a streaming session sends
 * one per token), held until the viewer leaves.
 */
function endWhen<T>(
  source: AsyncIterableIterator<T>,
  watch: (end: (error: TRPCError) => void) => () => void,
): AsyncIterableIterator<T> {
  let ended: TRPCError | null = null;
  let interrupt: ((error: TRPCError) => void) | null = null;
  const cleanup = watch((error) => {
    ended ??= error;
    interrupt?.(error);
  });
  const stop = async (error: TRPCError): Promise<never> => {
    cleanup();
    await source.return?.();
    throw error;
  };
  // Called once per event a viewer receives (per token while a session streams): one promise of
  // its own around the source's, no async function or `finally` adding more for every token.
  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (ended) return stop(ended);
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        interrupt = (error) => {
          interrupt = null;
          resolve(stop(error));
        };
        source.next().then(
          (step) => {
            interrupt = null;
            if (step.done) cleanup();
            resolve(step);
          },
          (error: unknown) => {
            interrupt = null;
            reject(error);
          },
        );
      });
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

/**
 * A room's watchers now and after every change: a session's, counting the subscriber as watching
 * (`viewer`), or a project's open files (openFilesRoom), which the subscriber only looks at.
 */
export function presenceStream(presence: Presence, sessionId: string, viewer: Watcher | null, signal?: AbortSignal) {
  return endableStream(
    async function* (stop) {
      const queue: PresenceEntry[][] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = presence.subscribe(sessionId, (entries) => {
        queue.push(entries);
        wake?.();
      });
      // A watcher who only looks (the explorer's open files) starts from what is there now.
      const leave = viewer ? presence.join(sessionId, viewer) : () => undefined;
      if (!viewer) queue.push(presence.snapshot(sessionId));
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
          yield entries.map(({ key, userId, name, guest, typing, place }, i) => ({
            key: userId ? key : `guest-${i}`,
            userId,
            name,
            guest,
            typing,
            ...(place ? { place } : {}),
          }));
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
