import type { ModelMessage } from "ai";
import type { SessionEvent } from "@/lib/session-events";

// What the summary request sends: the older history flattened to plain text in one user message.
// Tool calls and results as structured parts would need the tools defined in the same request
// (Anthropic and Bedrock answer 400 to tool_use/tool_result blocks without them); as text, every
// provider accepts it, and long outputs can be cut for the summariser alone.

export const SUMMARY_REQUEST =
  "Summarise the conversation above for yourself, to continue the work with less context. Use exactly these headings, " +
  'and write "none" under one with nothing to say:\n' +
  "## Goal: the people's goal and constraints.\n" +
  "## Latest request: the last request from a person, word for word, with their name.\n" +
  "## Rejected calls: each tool call a person rejected, with their feedback word for word.\n" +
  "## Learned: facts found that the work relies on (causes, where things are, how the project runs).\n" +
  "## Failed: each approach that did not work, and why, so it is not tried again.\n" +
  "## Files changed: each path and what changed in it.\n" +
  "## Commands: each command run, with its exact result (exit code and the lines that matter).\n" +
  "## Todo list: the current list, with each item's status.\n" +
  "## Background jobs: the jobs still running, with their ids and commands.\n" +
  "## Next step: what to do next.\n" +
  "Be factual and concise; no preamble.";

const MAX_INPUT_CHARS = 2_000;
const MAX_OUTPUT_CHARS = 4_000;

/** The summary request for the folded older messages, with facts the log alone does not hold. */
export function summaryRequest(older: ModelMessage[], facts: { todos: string | null; jobs: string[] }): ModelMessage[] {
  const transcript = older.map(renderMessage).filter(Boolean).join("\n\n");
  const extra = [
    facts.todos ? `Current todo list:\n${facts.todos}` : "",
    facts.jobs.length ? `Background jobs still running:\n${facts.jobs.join("\n")}` : "",
  ].filter(Boolean);
  const content = [`<conversation>\n${transcript}\n</conversation>`, ...extra, SUMMARY_REQUEST].join("\n\n");
  return [{ role: "user", content }];
}

/** The last todo_write list in the log, one line per item with its status. */
export function latestTodos(events: SessionEvent[]): string | null {
  const call = events.findLast((e) => e.type === "tool_call" && e.payload.toolName === "todo_write");
  if (call?.type !== "tool_call") return null;
  const todos = (call.payload.input as { todos?: Array<{ content?: string; status?: string }> } | null)?.todos;
  if (!Array.isArray(todos) || !todos.length) return null;
  return todos.map((t) => `- [${t.status ?? "pending"}] ${t.content ?? ""}`).join("\n");
}

/** The last person's message before `upToSeq`, word for word, as the model read it. */
export function latestRequest(events: SessionEvent[], upToSeq: number): string | null {
  const message = events.findLast((e) => e.type === "user_message" && e.seq <= upToSeq);
  if (message?.type !== "user_message") return null;
  return message.payload.authorName ? `[${message.payload.authorName}] ${message.payload.text}` : message.payload.text;
}

function renderMessage(message: ModelMessage): string {
  if (typeof message.content === "string") return `### ${speaker(message.role)}\n${message.content}`;
  const parts: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        parts.push(part.text);
        break;
      case "tool-call":
        parts.push(`→ ${part.toolName} ${cut(JSON.stringify(part.input), MAX_INPUT_CHARS)}`);
        break;
      case "tool-result": {
        const output = part.output;
        const text = output.type === "text" || output.type === "error-text" ? output.value : JSON.stringify(output);
        parts.push(
          `← ${part.toolName} ${output.type === "error-text" ? "failed" : "returned"}:\n${cut(text, MAX_OUTPUT_CHARS)}`,
        );
        break;
      }
      default:
        break;
    }
  }
  return parts.length ? `### ${speaker(message.role)}\n${parts.join("\n")}` : "";
}

function speaker(role: ModelMessage["role"]): string {
  return role === "user" ? "Person" : role === "assistant" ? "Agent" : role === "tool" ? "Tool results" : "System";
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} […${text.length - max} characters cut]` : text;
}
