import type { SessionEvent, SessionEventType } from "@/lib/session-events";

// What a session's log says about reviewing and rolling back the agent's changes: its checkpoints
// (one per turn that changed something), the review base, restores and rewinds. A pure fold, used
// by the server (review and checkpoint routers) and by both transcript folds (rewinds).

/** The event types this fold reads; the server loads only these for a review. */
export const REVIEW_EVENT_TYPES = [
  "user_message",
  "turn_started",
  "turn_finished",
  "checkpoint",
  "review_base",
  "restore",
  "rewind",
  "restore_undone",
] as const satisfies readonly SessionEventType[];

export type TurnCheckpoint = {
  checkpointId: string;
  turnId: string;
  seq: number;
  createdAt: Date;
  filesChanged: number;
  /** Seq of the message that started the turn (where a rewind to before it begins). */
  turnStartSeq: number;
  /** What the person asked in that turn. */
  request: string | null;
  /** The snapshot taken when the turn ended; null while it runs, or when it was cut off. */
  endId: string | null;
};

export type RestoreRecord = {
  seq: number;
  checkpointId: string;
  turnId: string;
  undoId: string;
  files: string[];
  rewound: boolean;
  undone: boolean;
  by: { id: string; name: string };
};

export type ReviewLog = {
  checkpoints: TurnCheckpoint[];
  /**
   * Diffs in the Changes view are taken against this; null until the agent first changed something.
   * The first checkpoint, moved forward by accepts. A restore rolls the review back with the files:
   * the base becomes what it was when the restored checkpoint was taken (and an undo puts it back).
   */
  baseId: string | null;
  restores: RestoreRecord[];
  /** Seq ranges (inclusive) hidden by rewinds that were not undone. */
  rewound: Array<{ fromSeq: number; toSeq: number }>;
  lastSeq: number;
};

export function foldReviewLog(events: readonly SessionEvent[]): ReviewLog {
  const log: ReviewLog = { checkpoints: [], baseId: null, restores: [], rewound: [], lastSeq: 0 };
  const turnStart = new Map<string, number>();
  // As in server/agent/turn-state.ts: a turn's context begins at the first message after the previous turn ended.
  let firstMessage: { seq: number; text: string } | null = null;
  const requests = new Map<string, string | null>();
  const baseWhenTaken = new Map<string, string>();
  const baseBeforeRestore = new Map<string, string | null>();

  for (const event of events) {
    log.lastSeq = event.seq;
    switch (event.type) {
      case "user_message":
        firstMessage ??= { seq: event.seq, text: event.payload.text };
        break;
      case "turn_started":
        turnStart.set(event.payload.turnId, firstMessage?.seq ?? event.seq);
        requests.set(event.payload.turnId, firstMessage?.text ?? null);
        break;
      case "turn_finished": {
        firstMessage = null;
        const { turnId, endCheckpointId } = event.payload;
        const taken = endCheckpointId && log.checkpoints.findLast((c) => c.turnId === turnId);
        if (taken) taken.endId = endCheckpointId;
        break;
      }
      case "checkpoint":
        log.checkpoints.push({
          checkpointId: event.payload.checkpointId,
          turnId: event.payload.turnId,
          seq: event.seq,
          createdAt: event.createdAt,
          filesChanged: event.payload.filesChanged,
          turnStartSeq: turnStart.get(event.payload.turnId) ?? event.seq,
          request: requests.get(event.payload.turnId) ?? null,
          endId: null,
        });
        log.baseId ??= event.payload.checkpointId;
        baseWhenTaken.set(event.payload.checkpointId, log.baseId);
        break;
      case "review_base":
        log.baseId = event.payload.baseId;
        break;
      case "restore":
        log.restores.push({ ...event.payload, seq: event.seq, undone: false });
        baseBeforeRestore.set(event.payload.undoId, log.baseId);
        log.baseId = baseWhenTaken.get(event.payload.checkpointId) ?? log.baseId;
        break;
      case "restore_undone": {
        const restore = log.restores.find((r) => r.undoId === event.payload.undoId);
        if (restore) restore.undone = true;
        if (baseBeforeRestore.has(event.payload.undoId)) log.baseId = baseBeforeRestore.get(event.payload.undoId)!;
        break;
      }
      default:
        break;
    }
  }
  log.rewound = rewoundRanges(events);
  return log;
}

/** Seq ranges hidden by rewinds that were not undone; cheap enough to run before every fold. */
export function rewoundRanges(events: readonly SessionEvent[]): Array<{ fromSeq: number; toSeq: number }> {
  const rewinds: Array<{ fromSeq: number; toSeq: number; undoId: string }> = [];
  const undone = new Set<string>();
  for (const event of events) {
    if (event.type === "rewind") rewinds.push(event.payload);
    else if (event.type === "restore_undone") undone.add(event.payload.undoId);
  }
  return rewinds.filter((r) => !undone.has(r.undoId)).map(({ fromSeq, toSeq }) => ({ fromSeq, toSeq }));
}

export function isRewound(ranges: ReadonlyArray<{ fromSeq: number; toSeq: number }>, seq: number): boolean {
  return ranges.some((r) => seq >= r.fromSeq && seq <= r.toSeq);
}
