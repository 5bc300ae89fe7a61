import type { AgentStore, NewEventRow } from "@/server/agent/agent-store";
import type { SessionBus } from "@/server/bus/session-bus";
import { groupCommit } from "@/server/agent/group-commit";
import type { Redactor } from "@/server/secrets/redactor";
import {
  eventPayloadSchemas,
  type EventInput,
  type ProvisionalDelta,
  type SessionEvent,
  type SessionEventOf,
  type SessionEventType,
} from "@/lib/session-events";

// Appends session events to Postgres and publishes them on the bus.
//
// Sequence numbers. Each session's `seq` is assigned here, synchronously, at the moment an event
// is appended, from a counter loaded once from the database (max seq). Writes for a session are
// chained, so rows reach the database, and committed events reach the bus, in seq order: a reader
// that has seen seq N has seen every seq below it. The primary key (sessionId, seq) refuses a
// reused number if two processes ever wrote to one session; the counter is then reloaded.
//
// Streamed text. Writing every token would mean hundreds of rows a second per session. Instead,
// `delta()` opens a buffer that reserves the next seq, and publishes each piece of text at once as
// a provisional delta { seq: reserved, offset, text }. The buffer is written as ONE
// `assistant_delta` row when it is FLUSH_MS old, or when any other event is appended (so the
// reserved seq is always committed before any later seq). Its committed event carries the whole
// text and replaces the provisional pieces for that seq (applyStreamItem in lib/session-events.ts).
// Secrets. A turn tells the log which secrets its session's processes hold (`redactWith`); every
// event appended to that session afterwards, and every streamed piece, has their values replaced by
// `[secret NAME]` before it is stored or published (server/secrets/redactor.ts). This is the one
// choke point for what the model and every viewer read: tool results, progress, errors, messages.
//
// So the database sees at most ~1000/FLUSH_MS rows a second per streaming session (and those of
// all sessions go in one INSERT at a time, group-commit.ts), viewers see
// every token as it arrives, and a viewer that reconnects with afterSeq misses nothing.

export const FLUSH_MS = 50;

type Buffer = { seq: number; turnId: string; stepId: string; text: string; timer: NodeJS.Timeout };
type State = { ready: Promise<void>; nextSeq: number; tail: Promise<void>; buffer: Buffer | null };

export type EventLog = ReturnType<typeof createEventLog>;

/**
 * `redactorOf`: the redactor of a session's secrets when the log first writes to it on this
 * instance (its project's, its team's and its author's), so that what is appended before a turn
 * runs (a message with `@` mentions of files) is redacted too; a turn refreshes it (`redactWith`).
 */
export function createEventLog(
  store: AgentStore,
  bus: SessionBus,
  redactorOf?: (sessionId: string) => Promise<Redactor | null>,
) {
  const states = new Map<string, State>();
  const redactors = new Map<string, Redactor>();
  const redacted = (sessionId: string, event: SessionEvent): SessionEvent => {
    const redactor = redactors.get(sessionId);
    return redactor && !redactor.empty
      ? ({ ...event, payload: redactor.redactDeep(event.payload) } as SessionEvent)
      : event;
  };
  const stats = { rowsWritten: 0, inserts: 0, eventsPublished: 0, deltasPublished: 0 };
  // One INSERT in flight for all sessions; rows asked for meanwhile go together in the next.
  const insert = groupCommit<NewEventRow>((rows) => {
    stats.inserts += 1;
    return store.events.insert(rows);
  });

  function state(sessionId: string): State {
    let s = states.get(sessionId);
    if (!s) {
      const created: State = { ready: Promise.resolve(), nextSeq: 0, tail: Promise.resolve(), buffer: null };
      created.ready = Promise.all([
        store.events.lastSeq(sessionId).then((seq) => {
          created.nextSeq = seq + 1;
        }),
        redactorOf?.(sessionId).then((redactor) => {
          if (redactor && !redactors.has(sessionId)) redactors.set(sessionId, redactor);
        }),
      ]).then(() => undefined);
      created.ready.catch(() => states.delete(sessionId));
      states.set(sessionId, (s = created));
    }
    return s;
  }

  // Chains the write of rows whose seqs are already assigned; publishes once they are stored.
  function write(sessionId: string, s: State, events: SessionEvent[]): Promise<void> {
    const rows: NewEventRow[] = events.map((e) => ({ ...e }));
    const done = s.tail.then(async () => {
      try {
        await insert(rows);
      } catch (error) {
        if (states.get(sessionId) === s) states.delete(sessionId); // reload the counter next time
        throw error;
      }
      stats.rowsWritten += rows.length;
      for (const event of events) {
        stats.eventsPublished += 1;
        bus.publish(sessionId, { kind: "event", event });
      }
    });
    s.tail = done.catch(() => {});
    return done;
  }

  function closeBuffer(sessionId: string, s: State): Promise<void> {
    const b = s.buffer;
    if (!b) return Promise.resolve();
    clearTimeout(b.timer);
    s.buffer = null;
    const event = redacted(
      sessionId,
      makeEvent(sessionId, b.seq, "assistant_delta", { turnId: b.turnId, stepId: b.stepId, text: b.text }, null),
    );
    return write(sessionId, s, [event]);
  }

  return {
    stats,

    /** From now on, the values `redactor` knows are hidden in this session's events (see above). */
    redactWith(sessionId: string, redactor: Redactor) {
      redactors.set(sessionId, redactor);
    },

    /** Loads the session's counter; `delta()` needs it loaded (a turn appends `turn_started` first). */
    async open(sessionId: string) {
      await state(sessionId).ready;
    },

    async append<T extends SessionEventType>(
      sessionId: string,
      type: T,
      payload: EventInput<T>,
      authorId: string | null = null,
    ): Promise<SessionEventOf<T>> {
      const parsed = eventPayloadSchemas[type].parse(payload);
      // Another instance appended to this session since the counter was loaded (a message sent
      // through it while this one runs the turn): the counter is reloaded and the event written
      // under the next free seq. A few tries, since that instance may keep appending.
      for (let attempt = 1; ; attempt++) {
        const s = state(sessionId);
        await s.ready;
        void closeBuffer(sessionId, s).catch(() => {});
        const event = redacted(sessionId, makeEvent(sessionId, s.nextSeq++, type, parsed, authorId));
        try {
          await write(sessionId, s, [event]);
          return event as SessionEventOf<T>;
        } catch (error) {
          if (attempt >= 5 || !store.events.isSeqTaken(error)) throw error;
        }
      }
    },

    /** Streams text: published now as a provisional delta, stored coalesced (see above). */
    delta(sessionId: string, piece: { turnId: string; stepId: string; text: string }) {
      const s = states.get(sessionId);
      if (!s || s.nextSeq === 0) throw new Error(`event log for session ${sessionId} is not open`);
      if (s.buffer && s.buffer.stepId !== piece.stepId) void closeBuffer(sessionId, s).catch(() => {});
      if (!s.buffer) {
        const timer = setTimeout(
          () => void closeBuffer(sessionId, s).catch((e) => console.error("delta flush failed:", e)),
          FLUSH_MS,
        );
        s.buffer = { seq: s.nextSeq++, turnId: piece.turnId, stepId: piece.stepId, text: "", timer };
      }
      const offset = s.buffer.text.length;
      s.buffer.text += piece.text;
      stats.deltasPublished += 1;
      bus.publish(sessionId, {
        kind: "delta",
        seq: s.buffer.seq,
        offset,
        text: redactors.get(sessionId)?.redact(piece.text) ?? piece.text,
        turnId: piece.turnId,
        stepId: piece.stepId,
      });
    },

    /** Writes any buffered text and waits until everything appended so far is stored. */
    async flush(sessionId: string) {
      const s = states.get(sessionId);
      if (!s) return;
      await closeBuffer(sessionId, s).catch(() => {});
      await s.tail;
    },

    /** The text streamed but not yet stored, for a subscriber that joins mid-stream. */
    pending(sessionId: string): ProvisionalDelta | null {
      const b = states.get(sessionId)?.buffer;
      if (!b) return null;
      const text = redactors.get(sessionId)?.redact(b.text) ?? b.text;
      return { seq: b.seq, offset: 0, text, turnId: b.turnId, stepId: b.stepId };
    },

    /** Forgets a session's counter (after it is deleted). */
    forget(sessionId: string) {
      const s = states.get(sessionId);
      if (s?.buffer) clearTimeout(s.buffer.timer);
      states.delete(sessionId);
      redactors.delete(sessionId);
    },
  };
}

function makeEvent(
  sessionId: string,
  seq: number,
  type: SessionEventType,
  payload: unknown,
  authorId: string | null,
): SessionEvent {
  return { sessionId, seq, type, payload, authorId, createdAt: new Date() } as SessionEvent;
}
