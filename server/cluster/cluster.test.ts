import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { setSetting } from "@/server/db/repositories/settings";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import { connect, signUp, until } from "@/server/cluster/cluster-client";
import { startCluster, type Cluster } from "@/server/cluster/test-cluster";
import type { SessionStreamItem } from "@/lib/session-events";

// Three real Tandem instances on one Postgres, behind a load balancer.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let model: ModelServer;
let cluster: Cluster;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  model = await startModelServer({ scenario: { replies: [{ match: "Tell a story", text: "Once upon a time on another instance", delayMs: 5 }] } });
  cluster = await startCluster({
    databaseUrl: database.url,
    instances: 3,
    env: { TANDEM_MODEL: "openai-compatible:scripted", TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url, TANDEM_OPENAI_COMPATIBLE_API_KEY: "test" },
  });
  await setSetting(database.db, "signupMode", "open");
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await model?.close();
  await database?.drop();
});

describe("a cluster of instances", () => {
  it("shares sign-ins: a cookie from one instance works on every instance and through the balancer", async () => {
    const [a, b, c] = cluster.instances;
    const cookie = await signUp(a!.url, "ann@example.com", "Ann");
    for (const url of [b!.url, c!.url, cluster.url]) {
      const client = connect(url, { cookie });
      expect((await client.trpc.account.me.query())?.email).toBe("ann@example.com");
      client.close();
    }
  });

  it("sends a session's events produced on one instance to a viewer on another", async () => {
    const [a, b] = cluster.instances;
    const cookie = await signUp(a!.url, "bob@example.com", "Bob");
    const onA = connect(a!.url, { cookie });
    const onB = connect(b!.url, { cookie });
    const project = await onA.trpc.project.create.mutate({ name: "Fan-out" });
    const session = await onA.trpc.session.create.mutate({ projectId: project.id });
    const seen: SessionStreamItem[] = [];
    const sub = onB.trpc.session.events.subscribe({ sessionId: session.id, afterSeq: 0 }, { onData: (tracked) => void seen.push(tracked.data) });
    await onA.trpc.session.send.mutate({ sessionId: session.id, text: "Tell a story" });
    await until(() => seen.some((item) => item.kind === "event" && item.event.type === "turn_finished"), "the turn's end on B", 20_000);
    expect(seen.some((item) => item.kind === "delta")).toBe(true);
    const seqs = seen.flatMap((item) => (item.kind === "events" ? item.events.map((e) => e.seq) : item.kind === "event" ? [item.event.seq] : []));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    sub.unsubscribe();
    onA.close();
    onB.close();
  });
});
