import pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";

// Fixed-window limits per client address for the endpoints a guesser would hammer: invitation
// and share-link resolution. (Sign-in and sign-up are limited by better-auth, server/auth/auth.ts,
// also in the database.) Counted in Postgres (rate-limiter-flexible's RateLimiterPostgres on the
// `app_rate_limit` table), so every instance of a cluster counts against the same window.

export type RateLimits = ReturnType<typeof createRateLimits>;

export const LIMITS = {
  /** Opening a share link (/s/<token>) and failed token lookups. */
  shareLink: { max: 30, windowMs: 60_000 },
  /** Reading or accepting a team invitation. */
  invitation: { max: 10, windowMs: 60_000 },
} as const;

type Bucket = keyof typeof LIMITS;

export function createRateLimits(
  databaseUrl: string,
  limits: Record<Bucket, { max: number; windowMs: number }> = LIMITS,
) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // An idle connection that breaks is replaced at the next attempt; the error alone must not end the process.
  pool.on("error", () => {});
  const limiters = Object.fromEntries(
    Object.entries(limits).map(([bucket, { max, windowMs }]) => [
      bucket,
      // The table comes from a migration (prisma/migrations/20261124020000_cluster_rate_limits).
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: "pool",
        tableName: "app_rate_limit",
        tableCreated: true,
        keyPrefix: bucket,
        points: max,
        duration: windowMs / 1000,
      }),
    ]),
  ) as Record<Bucket, RateLimiterPostgres>;
  return {
    /** Counts one attempt; false when the caller is over the limit for this window. */
    async take(bucket: Bucket, key: string): Promise<boolean> {
      try {
        await limiters[bucket].consume(key);
        return true;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return false;
        throw refusal;
      }
    },
    close: () => pool.end(),
  };
}
