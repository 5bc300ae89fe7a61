import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FileChange } from "@/lib/fs-schemas";
import type { FileChangeNews } from "@/server/bus/file-changes";
import { until } from "@/server/cluster/cluster-client";
import { chunkChanges, createPgFileChanges } from "@/server/cluster/pg-file-changes";
import { connectNotifyHub, MAX_PAYLOAD_BYTES, type NotifyHub } from "@/server/cluster/pg-notify";
import { createTestDatabase } from "@/server/test/database";

// Two instances' file-change buses on one real Postgres: a batch far larger than one NOTIFY
// arrives whole and in order, and a viewer whose instance lost its connection is told to re-read.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: pg.Client;
let a: NotifyHub;
let b: NotifyHub;
const name = () => new URL(database.url).pathname.slice(1);

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: inject("databaseUrl") });
  await admin.connect();
  a = await connectNotifyHub(database.url, () => {});
  b = await connectNotifyHub(database.url, () => {});
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await admin?.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS true`).catch(() => {});
  await admin?.end();
  await database?.drop();
});

describe("file changes across instances", () => {
  it("a batch of 1,000 long paths arrives whole and in order; after a lost connection the viewer is told to re-read", async () => {
    const busA = createPgFileChanges(a, () => {});
    const busB = createPgFileChanges(b, () => {});
    const batch: FileChange[] = Array.from({ length: 1_000 }, (_, n) => ({ type: "add", path: `${"deep/".repeat(40)}file-${n}.ts`, version: `v${n}` }));
    const chunks = chunkChanges("p1", batch);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify({ i: a.instanceId, m: { p: "p1", c: chunk } }))).toBeLessThan(MAX_PAYLOAD_BYTES);

    const seen: FileChange[] = [];
    const news: FileChangeNews["kind"][] = [];
    busB.subscribe("p1", (item) => (news.push(item.kind), item.kind === "changes" && seen.push(...item.changes)));
    const elsewhere: FileChange[] = [];
    busB.subscribe("other", (item) => item.kind === "changes" && elsewhere.push(...item.changes));
    busA.publish("p1", batch);
    await until(() => seen.length >= batch.length, "B hearing the whole batch", 10_000);
    expect(seen).toEqual(batch);
    expect(elsewhere).toEqual([]);

    await admin.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS false`);
    const { rowCount } = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`tandem-bus-${b.instanceId.slice(0, 8)}`]);
    expect(rowCount).toBe(1);
    busA.publish("p1", [{ type: "unlink", path: "missed.ts" }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(news).not.toContain("reread");
    await admin.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS true`);
    await until(() => news.includes("reread"), "B told to re-read", 10_000);
  });
});
