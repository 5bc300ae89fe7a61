import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileChange } from "@/lib/fs-schemas";
import type { FileChangeNews } from "@/server/bus/file-changes";
import { until } from "@/server/test/until";
import { chunkChanges, createPgFileChanges } from "@/server/cluster/pg-file-changes";
import { MAX_PAYLOAD_BYTES, type NotifyHub } from "@/server/cluster/pg-notify";
import { connectTwoNotifyHubs } from "@/server/test/notify-hubs";

// Two instances' file-change buses on one real Postgres: a batch far larger than one NOTIFY
// arrives whole and in order, and a viewer whose instance lost its connection is told to re-read.

let hubs: Awaited<ReturnType<typeof connectTwoNotifyHubs>>;
let a: NotifyHub;
let b: NotifyHub;

beforeAll(async () => {
  hubs = await connectTwoNotifyHubs();
  ({ a, b } = hubs);
});

afterAll(async () => {
  await hubs?.close();
});

describe("file changes across instances", () => {
  it("a batch of 1,000 long paths arrives whole and in order; after a lost connection the viewer is told to re-read", async () => {
    const busA = createPgFileChanges(a, () => {});
    const busB = createPgFileChanges(b, () => {});
    const batch: FileChange[] = Array.from({ length: 1_000 }, (_, n) => ({
      type: "add",
      path: `${"deep/".repeat(40)}file-${n}.ts`,
      version: `v${n}`,
    }));
    const chunks = chunkChanges("p1", batch);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks)
      expect(Buffer.byteLength(JSON.stringify({ i: a.instanceId, m: { p: "p1", c: chunk } }))).toBeLessThan(
        MAX_PAYLOAD_BYTES,
      );

    const seen: FileChange[] = [];
    const news: FileChangeNews["kind"][] = [];
    busB.subscribe("p1", (item) => (news.push(item.kind), item.kind === "changes" && seen.push(...item.changes)));
    const elsewhere: FileChange[] = [];
    busB.subscribe("other", (item) => item.kind === "changes" && elsewhere.push(...item.changes));
    busA.publish("p1", batch);
    await until(() => seen.length >= batch.length, "B hearing the whole batch", 10_000);
    expect(seen).toEqual(batch);
    expect(elsewhere).toEqual([]);

    const allow = await hubs.cutB();
    busA.publish("p1", [{ type: "unlink", path: "missed.ts" }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(news).not.toContain("reread");
    await allow();
    await until(() => news.includes("reread"), "B told to re-read", 10_000);
  });
});
