import type { ToolCallEvent } from "@/server/agent/turn-state";

// Stops a turn that keeps making the same tool call with the same arguments: a model stuck in a
// loop burns tokens and time without getting anywhere.

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

/** The call that has been made `repeats` times in this turn, or null. */
export function repeatedCall(turnCalls: ToolCallEvent[], repeats: number): { toolName: string; count: number } | null {
  if (repeats < 2) return null;
  const counts = new Map<string, number>();
  for (const call of turnCalls) {
    const key = callKey(call.payload.toolName, call.payload.input);
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count >= repeats) return { toolName: call.payload.toolName, count };
  }
  return null;
}

export function loopGuardMessage(hit: { toolName: string; count: number }): string {
  return `Stopped: the agent called ${hit.toolName} with the same arguments ${hit.count} times in this turn, which looks like a loop. Send a message with more guidance to continue.`;
}
