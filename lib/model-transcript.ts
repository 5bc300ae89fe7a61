import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from "ai";
import type { SessionEvent } from "@/lib/session-events";

// What the model reads: a pure fold over the session's event log.
//
// - The latest `compaction` replaces every event up to its `upToSeq` with its summary.
// - Each step becomes an assistant message (text + tool calls) followed by one tool message with
//   the results. A tool call without a result (still waiting, or cut off by a crash) is left out,
//   so the provider never sees a call without its answer.
// - A person's message that arrives while a step is being written (after the step's
//   `basedOnSeq`) or while its tools are still running is placed after that step's results: the
//   model answered without seeing it, and providers require results right after their calls.
// - Tool outputs older than `pruneBeforeSeq` are replaced by a stub (the log keeps them).

export const PRUNED_OUTPUT = "[Output pruned to save context. Run the tool again if you need it.]";
export const SUMMARY_PREFIX = "Summary of the conversation so far (older messages were compacted):\n\n";

export type ModelFoldOptions = { pruneBeforeSeq?: number };

type UserEntry = { role: "user"; content: string; seq: number };
type Step = {
  based: boolean;
  assistant: AssistantModelMessage & { content: Exclude<AssistantModelMessage["content"], string> };
  tool: ToolModelMessage;
  open: Set<string>;
  deferred: ModelMessage[];
};

export function foldModelMessages(events: SessionEvent[], options: ModelFoldOptions = {}): ModelMessage[] {
  const compaction = events.findLast((e) => e.type === "compaction");
  const from = compaction?.type === "compaction" ? compaction.payload.upToSeq : 0;
  const out: (ModelMessage | UserEntry | Step)[] = [];
  if (compaction?.type === "compaction") out.push({ role: "user", content: SUMMARY_PREFIX + compaction.payload.summary });

  const steps = new Map<string, Step>();
  const stepOfCall = new Map<string, Step>();
  const openStep = () => [...steps.values()].findLast((s) => s.open.size > 0);
  const step = (stepId: string) => {
    let s = steps.get(stepId);
    if (!s) {
      s = { based: false, assistant: { role: "assistant", content: [] }, tool: { role: "tool", content: [] }, open: new Set(), deferred: [] };
      steps.set(stepId, s);
      out.push(s);
    }
    return s;
  };

  // Moves messages written after `basedOnSeq` that sit before the step to after it.
  const placeStep = (s: Step, basedOnSeq: number | undefined) => {
    if (s.based || basedOnSeq === undefined) return;
    s.based = true;
    const at = out.indexOf(s);
    const later = out.slice(0, at).filter((e): e is UserEntry => "seq" in e && e.seq > basedOnSeq);
    if (!later.length) return;
    for (const entry of later) out.splice(out.indexOf(entry), 1);
    s.deferred.unshift(...later.map(({ role, content }) => ({ role, content })));
  };

  for (const event of events) {
    if (event.seq <= from) continue;
    switch (event.type) {
      case "user_message": {
        const open = openStep();
        if (open) open.deferred.push({ role: "user", content: event.payload.text });
        else out.push({ role: "user", content: event.payload.text, seq: event.seq });
        break;
      }
      case "assistant_delta":
        step(event.payload.stepId);
        break;
      case "assistant_message": {
        const s = step(event.payload.stepId);
        placeStep(s, event.payload.basedOnSeq);
        if (event.payload.text) s.assistant.content.unshift({ type: "text", text: event.payload.text });
        break;
      }
      case "tool_call": {
        const s = step(event.payload.stepId);
        placeStep(s, event.payload.basedOnSeq);
        s.assistant.content.push({
          type: "tool-call",
          toolCallId: event.payload.toolCallId,
          toolName: event.payload.toolName,
          input: event.payload.input ?? {},
        });
        s.open.add(event.payload.toolCallId);
        stepOfCall.set(event.payload.toolCallId, s);
        break;
      }
      case "tool_result": {
        const s = stepOfCall.get(event.payload.toolCallId);
        if (!s) break;
        const pruned = options.pruneBeforeSeq !== undefined && event.seq < options.pruneBeforeSeq;
        const value = pruned ? PRUNED_OUTPUT : event.payload.llm;
        s.tool.content.push({
          type: "tool-result",
          toolCallId: event.payload.toolCallId,
          toolName: event.payload.toolName,
          output: event.payload.ok ? { type: "text", value } : { type: "error-text", value },
        });
        s.open.delete(event.payload.toolCallId);
        break;
      }
      default:
        break;
    }
  }

  const messages: ModelMessage[] = [];
  for (const entry of out) {
    if (!("assistant" in entry)) {
      messages.push("seq" in entry ? { role: entry.role, content: entry.content } : entry);
      continue;
    }
    const answered = new Set(entry.tool.content.map((part) => (part.type === "tool-result" ? part.toolCallId : "")));
    const content = entry.assistant.content.filter((part) => part.type !== "tool-call" || answered.has(part.toolCallId));
    if (content.length) messages.push({ role: "assistant", content });
    if (entry.tool.content.length) messages.push(entry.tool);
    messages.push(...entry.deferred);
  }
  return messages;
}
