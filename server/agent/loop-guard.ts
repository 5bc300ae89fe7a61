import type { SessionEvent } from "@/lib/session-events";

// Catches a turn stuck in a loop: the same tool call with the same arguments, answered with the
// same result, over and over with nothing else in between. Re-running a check after an edit is
// normal (the edit breaks the streak, as does a different result or a person's message), so only
// an unbroken streak counts. At `repeats` the model is warned in the call's result; at twice that
// the turn stops.

/** A stable key: key order in the input does not matter. */
export function callKey(toolName: string, input: unknown): string {
  return `${toolName}:${stableStringify(input)}`;
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const WARNING_MARK = "\n\n[Loop guard]";

export type LoopHit = { toolName: string; count: number };

/**
 * The streak of the open turn's calls, fed each result as it is recorded. Built from the log at
 * each round of the loop, so a resumed turn counts what came before the restart.
 */
export class LoopGuard {
  private key = "";
  private result = "";
  private count = 0;
  private stop: LoopHit | null = null;

  constructor(private readonly repeats: number) {}

  /** Replays the open turn's calls and results from the log, from where the turn's context begins. */
  static fromLog(events: SessionEvent[], turnId: string, repeats: number): LoopGuard {
    const guard = new LoopGuard(repeats);
    const calls = new Map<string, { toolName: string; input: unknown }>();
    for (const event of events) {
      if (event.type === "user_message") guard.reset();
      else if (event.type === "tool_call" && event.payload.turnId === turnId)
        calls.set(event.payload.toolCallId, event.payload);
      else if (event.type === "tool_result" && event.payload.turnId === turnId) {
        const call = calls.get(event.payload.toolCallId);
        if (call) guard.observe(call.toolName, call.input, event.payload.ok, stripWarning(event.payload.llm));
      }
    }
    return guard;
  }

  private reset() {
    this.key = "";
    this.count = 0;
  }

  /** Counts a result; returns the warning to add to it, when the streak reaches the threshold. */
  observe(toolName: string, input: unknown, ok: boolean, llm: string): string | null {
    const key = callKey(toolName, input);
    const result = `${ok}:${llm}`;
    if (key === this.key && result === this.result) this.count += 1;
    else [this.key, this.result, this.count] = [key, result, 1];
    if (this.repeats < 2 || this.count < this.repeats) return null;
    if (this.count >= this.repeats * 2) this.stop ??= { toolName, count: this.count };
    return `${WARNING_MARK} ${toolName} has now run ${this.count} times in a row with the same arguments and the same result, with nothing changed in between. Do something different (change the approach, read something else, or report what blocks you); the turn stops at ${this.repeats * 2}.`;
  }

  /** The streak that reached twice the threshold, once one has. */
  get hit(): LoopHit | null {
    return this.stop;
  }
}

function stripWarning(llm: string): string {
  const at = llm.indexOf(WARNING_MARK);
  return at < 0 ? llm : llm.slice(0, at);
}

export function loopGuardMessage(hit: LoopHit): string {
  return `Stopped: the agent called ${hit.toolName} ${hit.count} times in a row with the same arguments and the same result, which looks like a loop. Send a message with more guidance to continue.`;
}
