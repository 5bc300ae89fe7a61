import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyStreamItem, committedEvents, emptyLiveLog, type LiveLog, type SessionStreamItem } from "@/lib/session-events";
import { foldTranscript } from "@/lib/session-transcript";
import { insertEvents, lastSeq } from "@/server/db/repositories/session-events";
import { createAgentHarness, only } from "./test-harness";

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
      expect(foldTranscript(log.events).items.find((i) => i.kind === "assistant")).toMatchObject({ text: FULL, streaming: false });
    }
    for (const items of [aItems, bItems]) {
      const seqs = items.flatMap((i) => committedEvents(i).map((e) => e.seq));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    }
    // A saw the text ahead of the database, token by token, and each committed run matches it.
    const provisional = aItems.filter((i): i is Extract<SessionStreamItem, { kind: "delta" }> => i.kind === "delta");
    expect(provisional.length).toBe(TOKENS.length);
    for (const row of only(stored, "assistant_delta")) {
      expect(provisional.filter((p) => p.seq === row.seq).map((p) => p.text).join("")).toBe(row.payload.text);
    }
    // Deltas are coalesced: far fewer rows than tokens.
    expect(only(stored, "assistant_delta").length).toBeLessThan(TOKENS.length / 4);
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

  it("sends a long history in a few page-sized batches, complete and in order", async () => {
    const session = await h.newSession();
    const db = h.env.services.db;
    const first = (await lastSeq(db, session.id)) + 1;
    const notes = Array.from({ length: 2500 }, (_, i) => ({
      sessionId: session.id,
      seq: first + i,
      type: "user_message" as const,
      payload: { text: `message ${i}` },
      authorId: null,
      createdAt: new Date(),
    }));
    await insertEvents(db, notes);
    const total = first + notes.length - 1;

    const open = async (afterSeq: number) => {
      const log = emptyLiveLog();
      log.lastSeq = afterSeq;
      const items: SessionStreamItem[] = [];
      const controller = new AbortController();
      for await (const item of h.agent.stream(session.id, afterSeq, controller.signal)) {
        items.push(item);
        applyStreamItem(log, item);
        if (log.lastSeq === total) break;
      }
      controller.abort();
      return { log, items };
    };

    const whole = await open(0);
    expect(whole.items.every((i) => i.kind === "events")).toBe(true);
    expect(whole.items.length).toBeLessThanOrEqual(3);
    expect(whole.log.events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(whole.log.events.at(-1)!.payload).toMatchObject({ text: "message 2499" });

    // A viewer that already holds part of it gets only the rest.
    const rest = await open(1200);
    expect(rest.log.events.map((e) => e.seq)).toEqual(Array.from({ length: total - 1200 }, (_, i) => i + 1201));
  });
});
