import type { SessionEvent, SessionEventOf } from "@/lib/session-events";

// What the runtime needs to continue a session, read from its log alone. This is what makes a
// turn durable: after a restart, or when an approval is answered, the loop re-enters from here.

export type ToolCallEvent = SessionEventOf<"tool_call">;

export type TurnState = {
  /** The turn that started and has not finished, if any. */
  openTurn: { turnId: string; seq: number } | null;
  /** Model steps taken in the open turn. */
  steps: number;
  /** Tool calls without a result, in the order the model made them. */
  pendingCalls: ToolCallEvent[];
  /**
   * Calls that started (`tool_started`) and have no result: cut off mid-run. `asked`: a person was
   * asked again since it started (an `approval_requested` after it), so their answer is for a re-run.
   */
  startedCalls: Map<string, { asked: boolean }>;
  /**
   * The last request made for each pending call (an `approval_requested` after its `tool_call`):
   * its seq and approval. An approval counts only for the request it answers (call-binding.ts), so
   * a call that reuses an earlier call's id finds no request of its own and is asked anew.
   */
  requests: Map<string, { seq: number; approvalId: string }>;
  lastSeq: number;
  /** The seq of the last person's message. */
  lastUserSeq: number;
  /** Where the open turn's own context begins: the first message after the previous turn ended. */
  turnContextSeq: number;
  /** The open turn already snapshotted the workspace (a `checkpoint` event). */
  checkpointed: boolean;
};

export function turnState(events: SessionEvent[]): TurnState {
  let openTurn: TurnState["openTurn"] = null;
  let steps = 0;
  const pending = new Map<string, ToolCallEvent>();
  const started = new Map<string, { asked: boolean }>();
  const requests = new Map<string, { seq: number; approvalId: string }>();
  let lastUserSeq = 0;
  let lastEnd = 0;
  let firstMessageAfterEnd = 0;
  let turnContextSeq = 0;
  let checkpointed = false;
  for (const event of events) {
    switch (event.type) {
      case "turn_started":
        openTurn = { turnId: event.payload.turnId, seq: event.seq };
        turnContextSeq = firstMessageAfterEnd || event.seq;
        steps = 0;
        checkpointed = false;
        break;
      case "turn_finished":
        if (openTurn?.turnId === event.payload.turnId) {
          openTurn = null;
          // The next turn takes its own checkpoint before its first change.
          checkpointed = false;
        }
        lastEnd = event.seq;
        firstMessageAfterEnd = 0;
        break;
      case "usage":
        if (openTurn?.turnId === event.payload.turnId) steps += 1;
        break;
      case "tool_call":
        pending.set(event.payload.toolCallId, event);
        requests.delete(event.payload.toolCallId);
        break;
      case "tool_result":
        pending.delete(event.payload.toolCallId);
        started.delete(event.payload.toolCallId);
        requests.delete(event.payload.toolCallId);
        break;
      case "tool_started":
        started.set(event.payload.toolCallId, { asked: false });
        break;
      case "approval_requested": {
        const cut = started.get(event.payload.toolCallId);
        if (cut) cut.asked = true;
        if (pending.has(event.payload.toolCallId))
          requests.set(event.payload.toolCallId, { seq: event.seq, approvalId: event.payload.approvalId });
        break;
      }
      case "checkpoint":
        if (openTurn?.turnId === event.payload.turnId) checkpointed = true;
        break;
      case "user_message":
        lastUserSeq = event.seq;
        if (event.seq > lastEnd && !firstMessageAfterEnd) firstMessageAfterEnd = event.seq;
        break;
      default:
        break;
    }
  }
  return {
    openTurn,
    steps,
    pendingCalls: [...pending.values()],
    startedCalls: started,
    requests,
    lastSeq: events.at(-1)?.seq ?? 0,
    lastUserSeq,
    turnContextSeq,
    checkpointed,
  };
}

/** Adds an event the caller just appended, only when it follows on (a later refresh reads the rest). */
export function pushContiguous(events: SessionEvent[], event: SessionEvent) {
  if (event.seq === (events.at(-1)?.seq ?? 0) + 1) events.push(event);
}
