// Fan-out latency across instances: from a model token to a viewer of the session on ANOTHER
// instance (through Postgres LISTEN/NOTIFY), against a viewer on the instance that runs the turn
// (in-process), in the same run and the same turns. Run with `npm run bench:cluster [turns] [tokens]`.
// Figures only: nothing here fails a build. Target (issue 15): cross-instance p99 at most 2x.
//
// Two real instances (server/cluster/test-cluster.ts) on an embedded Postgres; the scripted model
// server stamps each token when it writes it; both viewers subscribe to `session.events` over the
// tRPC WebSocket, as a browser does, and see the same turns at the same time.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { connect, signUp } from "@/server/cluster/cluster-client";
import { startCluster } from "@/server/cluster/test-cluster";
import { committedEvents } from "@/lib/session-events";
import { startModelServer, type ScriptedReply } from "@/e2e/fixtures/model-server/server";

const TURNS = Number(process.argv[2] ?? 5);
const TOKENS = Number(process.argv[3] ?? 200);
const TOKEN_INTERVAL_MS = 10;
const now = () => performance.timeOrigin + performance.now();

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-bench-cluster-"));
const postgres = await startEmbeddedPostgres(path.join(dir, "pg"));
const model = await startModelServer();
const sentAt = new Map<string, number>();
model.onToken(({ text, sentAt: at }) => {
  const id = /⟦([^⟧]+)⟧/.exec(text)?.[1];
  if (id) sentAt.set(id, at);
});
const reply = (label: string): ScriptedReply => ({ match: label, tokens: Array.from({ length: TOKENS }, (_, i) => `⟦${label}:${i}⟧ `), delayMs: TOKEN_INTERVAL_MS });

const cluster = await startCluster({
  databaseUrl: postgres.url,
  instances: 2,
  dataDir: path.join(dir, "data"),
  env: { TANDEM_BUS: "postgres", TANDEM_MODEL: "openai-compatible:scripted", TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url, TANDEM_OPENAI_COMPATIBLE_API_KEY: "bench" },
});
const [a, b] = cluster.instances;
const cookie = await signUp(a!.url, "bench@example.com", "Bench");
const onA = connect(a!.url, { cookie });
const onB = connect(b!.url, { cookie });
const project = await onA.trpc.project.create.mutate({ name: "Bench" });

/** Follows a session until its turn ends, recording each token's latency the first time it is seen. */
function viewer(client: ReturnType<typeof connect>, sessionId: string, into: number[]) {
  const seen = new Set<string>();
  const record = (text: string, at: number) => {
    for (const match of text.matchAll(/⟦([^⟧]+)⟧/g)) {
      const sent = sentAt.get(match[1]!);
      if (sent === undefined || seen.has(match[1]!)) continue;
      seen.add(match[1]!);
      into.push(at - sent);
    }
  };
  let started = () => {};
  const subscribed = new Promise<void>((resolve) => (started = resolve));
  const done = new Promise<void>((resolve, reject) => {
    const sub = client.trpc.session.events.subscribe(
      { sessionId, afterSeq: 0 },
      {
        onStarted: () => started(),
        onData: ({ data: item }) => {
          const at = now();
          if (item.kind === "delta") record(item.text, at);
          const events = committedEvents(item);
          for (const event of events) if (event.type === "assistant_delta") record(event.payload.text, at);
          if (events.some((event) => event.type === "turn_finished")) {
            sub.unsubscribe();
            resolve();
          }
        },
        onError: reject,
      },
    );
  });
  return { subscribed, done };
}

const same: number[] = [];
const cross: number[] = [];
try {
  for (let turn = 0; turn < TURNS; turn++) {
    const label = `turn${turn}`;
    model.add(reply(label));
    const session = await onA.trpc.session.create.mutate({ projectId: project.id });
    const local = viewer(onA, session.id, same);
    const remote = viewer(onB, session.id, cross);
    await Promise.all([local.subscribed, remote.subscribed]);
    await onA.trpc.session.send.mutate({ sessionId: session.id, text: label });
    await Promise.all([local.done, remote.done]);
  }
  const row = (name: string, values: number[]) =>
    `${name.padEnd(34)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p99 ${percentile(values, 99).toFixed(1).padStart(7)} ms   (${values.length} tokens)`;
  console.log(`\nfan-out from a model token to a viewer, ${TURNS} turns x ${TOKENS} tokens, one every ${TOKEN_INTERVAL_MS} ms`);
  console.log(row("viewer on the turn's instance", same));
  console.log(row("viewer on another instance", cross));
  console.log(`ratio other/same: p50 ${(percentile(cross, 50) / percentile(same, 50)).toFixed(2)}x, p99 ${(percentile(cross, 99) / percentile(same, 99)).toFixed(2)}x (target: p99 at most 2x)`);
} finally {
  onA.close();
  onB.close();
  await cluster.stop();
  await model.close();
  await postgres.stop();
  await fs.rm(dir, { recursive: true, force: true });
}
