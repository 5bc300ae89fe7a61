import { randomUUID } from "node:crypto";
import pg from "pg";

// One Postgres connection per instance that LISTENs on Tandem's channels and sends its NOTIFYs:
// the transport of the cluster's buses (pg-session-bus.ts, pg-access-changes.ts, ...). Payloads
// are small JSON (ids, seqs); receivers read rows from the tables. Every message names the
// instance that sent it, so an instance ignores its own (it delivered those in-process already).
//
// Notifications sent while the connection is down are kept and sent after it is back; what others
// sent meanwhile is lost to this instance, so each bus re-reads its state on `onReconnect`.
// Written over `pg` directly: LISTEN needs one long-lived connection of its own, outside Prisma's pool.

export const CHANNELS = [
  "tandem_session",
  "tandem_access",
  "tandem_link",
  "tandem_presence",
  "tandem_files",
  "tandem_board",
  "tandem_inbox",
] as const;
export type Channel = (typeof CHANNELS)[number];

/** Postgres refuses payloads of 8000 bytes or more; a bus that might exceed it sends less (an id). */
export const MAX_PAYLOAD_BYTES = 7_900;
const BATCH = 100;
const MAX_QUEUED = 10_000;
const RETRY_MS = [100, 250, 500, 1_000, 2_000];

export type NotifyHub = {
  readonly instanceId: string;
  /** Sends `payload` to the other instances; false (and nothing sent) when it is too large. */
  publish(channel: Channel, payload: object): boolean;
  listen(channel: Channel, handler: (payload: unknown) => void): () => void;
  /** Called after the connection came back: notifications may have been missed meanwhile. */
  onReconnect(handler: () => void): () => void;
  close(): Promise<void>;
};

export async function connectNotifyHub(
  databaseUrl: string,
  log: (line: string) => void = console.error,
): Promise<NotifyHub> {
  const instanceId = randomUUID();
  const handlers = new Map<Channel, Set<(payload: unknown) => void>>(CHANNELS.map((channel) => [channel, new Set()]));
  const reconnectHandlers = new Set<() => void>();
  const queue: Array<{ channel: Channel; text: string }> = [];
  let client: pg.Client | null = null;
  let flushing = false;
  let closed = false;
  let attempt = 0;

  const onNotification = (message: pg.Notification) => {
    let parsed: { i?: unknown; m?: unknown };
    try {
      parsed = JSON.parse(message.payload ?? "");
    } catch {
      return;
    }
    if (parsed.i === instanceId) return;
    for (const handler of handlers.get(message.channel as Channel) ?? []) {
      try {
        handler(parsed.m);
      } catch (error) {
        log(`cluster bus: a ${message.channel} listener failed: ${(error as Error).message}`);
      }
    }
  };

  async function open(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      application_name: `tandem-bus-${instanceId.slice(0, 8)}`,
    });
    next.on("notification", onNotification);
    next.on("error", () => lost(next));
    next.on("end", () => lost(next));
    await next.connect();
    for (const channel of CHANNELS) await next.query(`LISTEN ${channel}`);
    return next;
  }

  function lost(which: pg.Client) {
    if (client !== which || closed) return;
    client = null;
    which.removeAllListeners("notification");
    void which.end().catch(() => {});
    log("cluster bus: lost the Postgres connection; reconnecting");
    void reconnect();
  }

  async function reconnect() {
    while (!closed && !client) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]));
      try {
        client = await open();
      } catch {
        continue;
      }
      attempt = 0;
      log("cluster bus: reconnected to Postgres");
      for (const handler of reconnectHandlers) handler();
      void flush();
    }
  }

  /** Sends the queue in batches, in order: one statement, so the batch arrives in one piece and in order. */
  async function flush() {
    if (flushing) return;
    flushing = true;
    try {
      while (queue.length && client) {
        const batch = queue.slice(0, BATCH);
        const calls = batch.map((_, n) => `pg_notify($${2 * n + 1}, $${2 * n + 2})`).join(", ");
        try {
          await client.query(
            `SELECT ${calls}`,
            batch.flatMap((entry) => [entry.channel, entry.text]),
          );
          queue.splice(0, batch.length);
        } catch {
          // The connection broke: `lost` reconnects and flushes again (a batch may then arrive twice; receivers tolerate it).
          break;
        }
      }
    } finally {
      flushing = false;
    }
  }

  client = await open();

  return {
    instanceId,
    publish(channel, payload) {
      const text = JSON.stringify({ i: instanceId, m: payload });
      if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) return false;
      if (queue.length >= MAX_QUEUED) queue.shift(); // long disconnected: the oldest go; receivers re-read on reconnect
      queue.push({ channel, text });
      void flush();
      return true;
    },
    listen(channel, handler) {
      const set = handlers.get(channel)!;
      set.add(handler);
      return () => void set.delete(handler);
    },
    onReconnect(handler) {
      reconnectHandlers.add(handler);
      return () => void reconnectHandlers.delete(handler);
    },
    async close() {
      closed = true;
      await flush();
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
