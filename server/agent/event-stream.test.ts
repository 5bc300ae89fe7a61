import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyStreamItem,
  committedEvents,
  emptyLiveLog,
  type LiveLog,
  type SessionStreamItem,
} from "@/lib/session-events";
import { foldTranscript } from "@/lib/session-transcript";
import { insertEvents, lastSeq } from "@/server/db/repositories/session-events";
import { createAgentHarness, only } from "@/server/test/agent-harness";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

const TOKENS = Array.from({ length: 150 }, (_, i) => `t${i} `);
const FULL = TOKENS.join("");

async function consume(sessionId: string, log: LiveLog, items: SessionStreamItem[], until: (log: LiveLog) => boolean) {
  const controller = new AbortController();
  for await (const item of h.agent.stream(sessionId, log.lastSeq, controller.signal)) {
    items.push(item);
    applyStreamItem(log, item);
    if (until(log)) break;
  }
  controller.abort();
}

const finished = (log: LiveLog) => log.events.some((e) => e.type === "turn_finished");

describe("session event stream", () => {
  it("gives two viewers, one of which reconnects mid-stream, every event once and in order", async () => {
    const session = await h.newSession({ replies: [{ tokens: TOKENS, delayMs: 3 }] });
    const a = emptyLiveLog();
    const aItems: SessionStreamItem[] = [];
    const b = emptyLiveLog();
    const bItems: SessionStreamItem[] = [];
    const viewerA = consume(session.id, a, aItems, finished);
    // B leaves after a few provisional deltas, then comes back asking for what it missed.
    const viewerB = (async () => {
      let deltas = 0;
      await consume(session.id, b, bItems, () => ++deltas > 40);
      await new Promise((r) => setTimeout(r, 80));
      await consume(session.id, b, bItems, finished);
    })();
    await new Promise((r) => setTimeout(r, 20));
    await h.caller.session.send({ sessionId: session.id, text: "Stream a lot" });
    await Promise.all([viewerA, viewerB]);
    await h.agent.idle(session.id);

    const stored = await h.events(session.id);
    for (const log of [a, b]) {
      expect(log.events.map((e) => e.seq)).toEqual(stored.filter((e) => e.seq <= log.lastSeq).map((e) => e.seq));
      expect(only(log.events, "assistant_message")[0]!.payload.text).toBe(FULL);
      expect(foldTranscript(log.events).items.find((i) => i.kind === "assistant")).toMatchObject({
        text: FULL,
        streaming: false,
      });
    }
    for (const items of [aItems, bItems]) {
      const seqs = items.flatMap((i) => committedEvents(i).map((e) => e.seq));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    }
    // A saw the text ahead of the database, token by token, and each committed run matches it.
    const provisional = aItems.filter((i): i is Extract<SessionStreamItem, { kind: "delta" }> => i.kind === "delta");
    expect(provisional.map((p) => p.text).join("")).toBe(FULL);
    for (const row of only(stored, "assistant_delta")) {
      expect(
        provisional
          .filter((p) => p.seq === row.seq)
          .map((p) => p.text)
          .join(""),
      ).toBe(row.payload.text);
    }
    // Deltas are coalesced: far fewer rows than tokens.
    expect(only(stored, "assistant_delta").length).toBeLessThan(TOKENS.length / 4);
  });

  it("gives a viewer that falls behind the tokens it missed in fewer messages, the text whole", async () => {
    const session = await h.newSession({ replies: [{ tokens: TOKENS, delayMs: 2 }] });
    const slow = emptyLiveLog();
    const items: SessionStreamItem[] = [];
    const controller = new AbortController();
    const viewer = (async () => {
      for await (const item of h.agent.stream(session.id, 0, controller.signal)) {
        items.push(item);
        applyStreamItem(slow, item);
        if (finished(slow)) break;
        await new Promise((r) => setTimeout(r, 15));
      }
      controller.abort();
    })();
    await h.caller.session.send({ sessionId: session.id, text: "Stream a lot" });
    await viewer;
    const deltas = items.filter((i) => i.kind === "delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(TOKENS.length / 2);
    expect(only(slow.events, "assistant_message")[0]!.payload.text).toBe(FULL);
  });

  it("shows text streamed so far to a viewer who joins mid-stream", async () => {
    const session = await h.newSession({ replies: [{ tokens: TOKENS, delayMs: 3 }] });
    await h.caller.session.send({ sessionId: session.id, text: "Stream a lot" });
    await h.waitFor(() => h.agent.log.pending(session.id) !== null);
    await new Promise((r) => setTimeout(r, 30));
    const late = emptyLiveLog();
    const first: SessionStreamItem[] = [];
    await consume(session.id, late, first, finished);
    const text = foldTranscript(late.events, late.provisional).items.find((i) => i.kind === "assistant");
    expect(text).toMatchObject({ text: FULL });
  });

  /** A session whose log holds `total` events, the ones after creation being user messages. */
  async function sessionOf(total: number) {
    const session = await h.newSession();
    const db = h.env.services.db;
    const first = (await lastSeq(db, session.id)) + 1;
    const notes = Array.from({ length: total - first + 1 }, (_, i) => ({
      sessionId: session.id,
      seq: first + i,
      type: "user_message" as const,
      payload: { text: `message ${first + i}` },
      authorId: null,
      createdAt: new Date(),
    }));
    await insertEvents(db, notes);
    return session;
  }

  async function open(sessionId: string, afterSeq: number, total: number) {
    const log = emptyLiveLog();
    log.lastSeq = afterSeq;
    const items: SessionStreamItem[] = [];
    const controller = new AbortController();
    for await (const item of h.agent.stream(sessionId, afterSeq, controller.signal)) {
      items.push(item);
      applyStreamItem(log, item);
      if (item.kind === "events" && !item.more) break;
    }
    controller.abort();
    expect(log.lastSeq).toBe(total);
    return { log, items };
  }

  it("sends a long history in a few page-sized batches, complete and in order", async () => {
    const total = 2600;
    const session = await sessionOf(total);

    const whole = await open(session.id, 0, total);
    expect(whole.items.every((i) => i.kind === "events")).toBe(true);
    expect(whole.items.length).toBeLessThanOrEqual(3);
    // Every batch but the last says more follow, so a viewer can render once, at the end.
    expect(whole.items.map((i) => i.kind === "events" && i.more)).toEqual([
      ...whole.items.map(() => true).slice(1),
      false,
    ]);
    expect(whole.log.events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(whole.log.events.at(-1)!.payload).toMatchObject({ text: `message ${total}` });

    // A viewer that already holds part of it gets only the rest.
    const rest = await open(session.id, 1200, total);
    expect(rest.log.events.map((e) => e.seq)).toEqual(Array.from({ length: total - 1200 }, (_, i) => i + 1201));
  });

  it("ends a history of exactly whole pages with a batch that says nothing more follows", async () => {
    const session = await sessionOf(2000);
    const { items } = await open(session.id, 0, 2000);
    expect(items.at(-1)).toMatchObject({ kind: "events", more: false });
  });
});
