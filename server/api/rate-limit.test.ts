import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { createRateLimits } from "./rate-limit";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe("rate limits", () => {
  it("refuse past the limit within a window, per address, counted in Postgres by every instance alike, and forget the next window", async () => {
    const limits = { shareLink: { max: 30, windowMs: 60_000 }, invitation: { max: 10, windowMs: 1_000 } };
    // Two instances: each has its own limiter and pool on the same database.
    const a = createRateLimits(database.url, limits);
    const b = createRateLimits(database.url, limits);
    try {
      const results: boolean[] = [];
      for (let i = 0; i < 11; i++) results.push(await (i % 2 ? b : a).take("invitation", "1.2.3.4"));
      expect(results.filter(Boolean)).toHaveLength(10);
      expect(results.at(-1)).toBe(false);
      expect(await b.take("invitation", "5.6.7.8")).toBe(true);
      expect(await a.take("shareLink", "1.2.3.4")).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await b.take("invitation", "1.2.3.4")).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
