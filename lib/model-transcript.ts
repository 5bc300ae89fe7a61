import type { AssistantModelMessage, FilePart, JSONValue, ModelMessage, TextPart, ToolModelMessage } from "ai";
import { IMAGE_PLACEHOLDER_PREFIX, imageNote, type ImageRef } from "@/lib/images";
import type { SessionEvent } from "@/lib/session-events";
import { isRewound, rewoundRanges } from "@/lib/review-log";

// What the model reads: a pure fold over the session's event log.
//
// - The latest `compaction` replaces every event up to its `upToSeq` with its summary.
// - Each step becomes an assistant message (text + tool calls) followed by one tool message with
//   the results. A tool call without a result (still waiting, or cut off by a crash) is left out,
//   so the provider never sees a call without its answer.
// - Messages are ordered by what the model had seen: a step sits right after the event its
//   request was built from (`basedOnSeq`), so a person's message that arrived while the step was
//   being written or its tools were running comes after the step and its results (providers
//   require results right after their calls).
// - Tool outputs older than `pruneBeforeSeq` are replaced by a stub (the log keeps them).
// - A person's message carries its author's name (`[Ada] …`): in a shared session several people
//   write, and the model must know who asked what.
// - Images (a person's pasted ones, a tool's) become image parts for a model that accepts them
//   (`acceptsImages`), holding a placeholder the runtime swaps for the bytes (server/agent/images.ts),
//   and a text note otherwise. A tool's images follow its results as a user message: tool messages
//   carry only text with OpenAI-compatible servers.
// - Events hidden by a rewind (lib/review-log.ts) are left out; a restore without a rewind becomes
//   a note, so the model knows its earlier edits were undone.

export const PRUNED_OUTPUT = "[Output pruned to save context. Run the tool again if you need it.]";
export const SUMMARY_PREFIX = "Summary of the conversation so far (older messages were compacted):\n\n";

export type ModelFoldOptions = { pruneBeforeSeq?: number; acceptsImages?: boolean };

// Images go as file parts with an image media type (AI SDK 7 deprecates its "image" part).
function imageParts(refs: readonly ImageRef[], accepts: boolean, what: string): Array<TextPart | FilePart> {
  return refs.map((ref) =>
    accepts
      ? { type: "file", data: `${IMAGE_PLACEHOLDER_PREFIX}${ref.hash}`, mediaType: ref.mediaType }
      : { type: "text", text: imageNote(ref, what) },
  );
}

type Step = {
  /** Where the step goes among people's messages. */
  at: number;
  placed: boolean;
  assistant: AssistantModelMessage & { content: Exclude<AssistantModelMessage["content"], string> };
  tool: ToolModelMessage;
  /** The images its tools returned, shown to the model right after the results. */
  images: Array<TextPart | FilePart>;
};
type Entry = { at: number; message: ModelMessage } | Step;

export function foldModelMessages(events: SessionEvent[], options: ModelFoldOptions = {}): ModelMessage[] {
  const compaction = events.findLast((e) => e.type === "compaction");
  const from = compaction?.type === "compaction" ? compaction.payload.upToSeq : 0;
  const entries: Entry[] = [];
  if (compaction?.type === "compaction")
    entries.push({ at: 0, message: { role: "user", content: SUMMARY_PREFIX + compaction.payload.summary } });

  const hidden = rewoundRanges(events);
  const steps = new Map<string, Step>();
  const stepOfCall = new Map<string, Step>();
  const step = (stepId: string, seq: number, basedOnSeq: number | undefined) => {
    let s = steps.get(stepId);
    if (!s) {
      s = {
        at: seq - 0.5,
        placed: false,
        assistant: { role: "assistant", content: [] },
        tool: { role: "tool", content: [] },
        images: [],
      };
      steps.set(stepId, s);
      entries.push(s);
    }
    if (basedOnSeq !== undefined && !s.placed) {
      s.at = basedOnSeq + 0.5;
      s.placed = true;
    }
    return s;
  };

  for (const event of events) {
    if (event.seq <= from || (hidden.length && isRewound(hidden, event.seq))) continue;
    switch (event.type) {
      case "user_message": {
        const images = event.payload.images ?? [];
        const attached = (event.payload.mentions ?? [])
          .filter((m) => m.text)
          .map((m) => `\n\n--- Attached with @${m.ref}${m.ok ? "" : " (failed)"} ---\n${m.text}`);
        const text = authored(event.payload.text + attached.join(""), event.payload.authorName);
        const content = images.length
          ? [{ type: "text" as const, text }, ...imageParts(images, options.acceptsImages ?? false, "A pasted image")]
          : text;
        entries.push({ at: event.seq, message: { role: "user", content } });
        break;
      }
      case "assistant_delta":
        step(event.payload.stepId, event.seq, undefined);
        break;
      case "assistant_message": {
        const s = step(event.payload.stepId, event.seq, event.payload.basedOnSeq);
        if (event.payload.text) s.assistant.content.unshift({ type: "text", text: event.payload.text });
        break;
      }
      case "tool_call": {
        const s = step(event.payload.stepId, event.seq, event.payload.basedOnSeq);
        s.assistant.content.push({
          type: "tool-call",
          toolCallId: event.payload.toolCallId,
          toolName: event.payload.toolName,
          input: event.payload.input ?? {},
        });
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
          output: !event.payload.ok
            ? { type: "error-text", value }
            : !pruned && event.payload.json
              ? jsonOutput(value)
              : { type: "text", value },
        });
        if (!pruned && event.payload.images?.length) {
          s.images.push({
            type: "text",
            text: `The image${event.payload.images.length > 1 ? "s" : ""} from ${event.payload.toolName} (call ${event.payload.toolCallId}):`,
          });
          s.images.push(...imageParts(event.payload.images, options.acceptsImages ?? false, "The image"));
        }
        break;
      }
      case "restore":
        if (!event.payload.rewound)
          entries.push({
            at: event.seq,
            message: { role: "user", content: restoreNote(event.payload.by.name, event.payload.files) },
          });
        break;
      case "restore_undone":
        entries.push({
          at: event.seq,
          message: {
            role: "user",
            content: `[${event.payload.by.name} undid that restore: the files are back as they were just before it. Read files again before you change them.]`,
          },
        });
        break;
      case "pull_request_opened": {
        const { by, number, head, base, url } = event.payload;
        entries.push({
          at: event.seq,
          message: {
            role: "user",
            content: `[${by.name} opened pull request #${number} from ${head} into ${base}: ${url}]`,
          },
        });
        break;
      }
      default:
        break;
    }
  }

  const messages: ModelMessage[] = [];
  for (const entry of [...entries].sort((a, b) => a.at - b.at)) {
    if ("message" in entry) {
      messages.push(entry.message);
      continue;
    }
    const answered = new Set(entry.tool.content.map((part) => (part.type === "tool-result" ? part.toolCallId : "")));
    const content = entry.assistant.content.filter(
      (part) => part.type !== "tool-call" || answered.has(part.toolCallId),
    );
    if (content.length) messages.push({ role: "assistant", content });
    if (entry.tool.content.length) messages.push(entry.tool);
    if (entry.tool.content.length && entry.images.length) messages.push({ role: "user", content: entry.images });
  }
  return messages;
}

/** A message as the model reads it: prefixed with who wrote it, when the log knows. */
export function authored(text: string, authorName: string | undefined): string {
  return authorName ? `[${authorName}] ${text}` : text;
}

function restoreNote(who: string, files: string[]): string {
  const list = files.length
    ? ` Files affected: ${files.slice(0, 20).join(", ")}${files.length > 20 ? ", …" : ""}.`
    : "";
  return `[${who} restored the project's files to how they were before one of your earlier turns.${list} Read files again before you change them.]`;
}

/** A structured result as JSON for the model; text when it no longer parses (cut to fit, say). */
function jsonOutput(value: string): { type: "json"; value: JSONValue } | { type: "text"; value: string } {
  try {
    return { type: "json", value: JSON.parse(value) as JSONValue };
  } catch {
    return { type: "text", value };
  }
}
