// Fixed-window limits per client address for the endpoints a guesser would hammer: invitation
// and share-link resolution. (Sign-in and sign-up are limited by better-auth, server/auth/auth.ts.)
// In memory: enough for one process; several instances would share a table or Redis.

export type RateLimits = ReturnType<typeof createRateLimits>;

export const LIMITS = {
  /** Opening a share link (/s/<token>) and failed token lookups. */
  shareLink: { max: 30, windowMs: 60_000 },
  /** Reading or accepting a team invitation. */
  invitation: { max: 10, windowMs: 60_000 },
} as const;

export function createRateLimits(now: () => number = Date.now) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Counts one attempt; false when the caller is over the limit for this window. */
    take(bucket: keyof typeof LIMITS, key: string): boolean {
      const { max, windowMs } = LIMITS[bucket];
      const id = `${bucket}:${key}`;
      const t = now();
      let w = windows.get(id);
      if (!w || t - w.start >= windowMs) {
        if (windows.size > 50_000) windows.clear();
        windows.set(id, (w = { start: t, count: 0 }));
      }
      w.count += 1;
      return w.count <= max;
    },
  };
}
