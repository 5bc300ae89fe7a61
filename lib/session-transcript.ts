import type { ImageRef } from "@/lib/images";
import type { ProvisionalDelta, SessionEvent, SessionStatus, TokenUsage } from "@/lib/session-events";
import { rewoundRanges } from "@/lib/review-log";

// What people see of a session: a pure fold over its event log (and the text streamed ahead of
// the log, see LiveLog in session-events.ts). Rendering code reads this; it never keeps its own copy.

export type ToolItemStatus = "running" | "awaiting_approval" | "done" | "failed" | "rejected";

export type TranscriptItem =
  | {
      kind: "user";
      seq: number;
      text: string;
      authorId: string | null;
      authorName?: string;
      at: Date;
      images?: ImageRef[];
      mentions?: Array<{ ref: string; ok: boolean }>;
    }
  | { kind: "assistant"; stepId: string; text: string; streaming: boolean }
  | { kind: "reasoning"; seq: number; stepId: string; text: string }
  | {
      kind: "tool";
      toolCallId: string;
      toolName: string;
      toolKind: string;
      title: string;
      input: unknown;
      status: ToolItemStatus;
      approvalId?: string;
      /** Why the call waits for a person (the policy's or the destructive-command guard's words). */
      approvalReason?: string;
      /** Every command the waiting call will run, when they are not in its input (a workflow's steps). */
      approvalCommands?: string[];
      result?: {
        ok: boolean;
        llm: string;
        display?: unknown;
        durationMs: number;
        errorCode?: string;
        images?: ImageRef[];
      };
      resolvedBy?: { id: string; name: string };
      feedback?: string;
    }
  | {
      kind: "question";
      approvalId: string;
      toolCallId: string;
      question: string;
      options: string[];
      multiSelect: boolean;
      answer?: string | string[];
      declined?: string;
      by?: { id: string; name: string };
    }
  | {
      kind: "subagent";
      toolCallId: string;
      childSessionId: string;
      index: number;
      prompt: string;
      status: "running" | "done" | "failed";
      result?: string;
    }
  | { kind: "compaction"; seq: number; summary: string }
  /** What the turn's prompt carried from the project: "3 memories, AGENTS.md". */
  | { kind: "context"; seq: number; turnId: string; label: string }
  | { kind: "error"; seq: number; code: string; message: string }
  | { kind: "notice"; seq: number; text: string }
  /** A project hook ran around a tool call (its output, whether it blocked the call). */
  | {
      kind: "hook";
      seq: number;
      toolCallId: string;
      hookEvent: string;
      command: string;
      outcome: "ok" | "blocked" | "failed" | "timed_out" | "refused";
      output: string;
    }
  /** The egress proxy refused `host` during a tool call; `allowedBy` once someone allowed it from the session. */
  | { kind: "network"; seq: number; toolCallId: string; host: string; allowedBy?: { id: string; name: string } }
  /** The workspace was snapshotted before this turn's first change: "Restore to before this turn". */
  | { kind: "checkpoint"; seq: number; checkpointId: string; turnId: string; filesChanged: number }
  | {
      kind: "restore";
      seq: number;
      checkpointId: string;
      undoId: string;
      files: string[];
      failed: { path: string; message: string }[];
      rewound: boolean;
      undone: boolean;
      by: { id: string; name: string };
    }
  /** A pull request someone opened from the project while this session was open. */
  | {
      kind: "pull_request";
      seq: number;
      url: string;
      number: number;
      title: string;
      head: string;
      base: string;
      by: { id: string; name: string };
    }
  /** Events a restore rewound: hidden from the model, collapsed here, never deleted. */
  | { kind: "rewound"; fromSeq: number; toSeq: number; items: TranscriptItem[] };

export type Transcript = {
  items: TranscriptItem[];
  status: SessionStatus;
  /** Approvals and questions still waiting for someone. */
  pending: string[];
  usage: TokenUsage;
  costUsd: number;
  lastSeq: number;
  /** Seq of the last event that changes what the Changes view shows without touching files (checkpoints, accepts, restores). */
  reviewSeq: number;
};

const NOTICES: Record<string, string> = {
  cancelled: "Stopped.",
  step_limit: "Stopped: the turn reached its step limit.",
  interrupted: "Interrupted: the server stopped during this turn. Resume to continue.",
};

export function foldTranscript(events: SessionEvent[], provisional?: Map<number, ProvisionalDelta>): Transcript {
  const t: Transcript = {
    items: [],
    status: "idle",
    pending: [],
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
    costUsd: 0,
    lastSeq: 0,
    reviewSeq: 0,
  };
  const assistant = new Map<string, Extract<TranscriptItem, { kind: "assistant" }>>();
  const tools = new Map<string, Extract<TranscriptItem, { kind: "tool" }>>();
  const questions = new Map<string, Extract<TranscriptItem, { kind: "question" }>>();
  const subagents = new Map<string, Extract<TranscriptItem, { kind: "subagent" }>>();
  const restores = new Map<string, Extract<TranscriptItem, { kind: "restore" }>>();
  const denials: Array<Extract<TranscriptItem, { kind: "network" }>> = [];
  // Items of rewound events go into a collapsed group in their place instead of the main list.
  const ranges = rewoundRanges(events);
  const groups = new Map<number, Extract<TranscriptItem, { kind: "rewound" }>>();
  let out = t.items;
  // Where the open turn's items begin: its checkpoint is shown there, at the top of the turn.
  let turnTop: { turnId: string; list: TranscriptItem[]; index: number } | null = null;

  const assistantItem = (stepId: string) => {
    let item = assistant.get(stepId);
    if (!item) {
      item = { kind: "assistant", stepId, text: "", streaming: true };
      assistant.set(stepId, item);
      out.push(item);
    }
    return item;
  };

  for (const event of events) {
    t.lastSeq = event.seq;
    const range = ranges.length ? ranges.find((r) => event.seq >= r.fromSeq && event.seq <= r.toSeq) : undefined;
    if (range) {
      let group = groups.get(range.fromSeq);
      if (!group) {
        group = { kind: "rewound", fromSeq: range.fromSeq, toSeq: range.toSeq, items: [] };
        groups.set(range.fromSeq, group);
        t.items.push(group);
      }
      out = group.items;
    } else {
      out = t.items;
    }
    switch (event.type) {
      case "user_message":
        out.push({
          kind: "user",
          seq: event.seq,
          text: event.payload.text,
          authorId: event.authorId,
          authorName: event.payload.authorName,
          at: event.createdAt,
          images: event.payload.images,
          mentions: event.payload.mentions?.map((m) => ({ ref: m.ref, ok: m.ok })),
        });
        break;
      case "assistant_delta":
        assistantItem(event.payload.stepId).text += event.payload.text;
        break;
      case "assistant_message": {
        const item = assistantItem(event.payload.stepId);
        item.text = event.payload.text;
        item.streaming = false;
        break;
      }
      case "reasoning":
        out.push({ kind: "reasoning", seq: event.seq, stepId: event.payload.stepId, text: event.payload.text });
        break;
      case "tool_call": {
        if (event.payload.toolName === "ask_user") break; // shown as a question when it is asked
        const item: Extract<TranscriptItem, { kind: "tool" }> = {
          kind: "tool",
          toolCallId: event.payload.toolCallId,
          toolName: event.payload.toolName,
          toolKind: event.payload.kind,
          title: event.payload.title,
          input: event.payload.input,
          status: "running",
        };
        tools.set(item.toolCallId, item);
        out.push(item);
        break;
      }
      case "tool_result": {
        const item = tools.get(event.payload.toolCallId);
        if (!item) break;
        const { ok, llm, display, durationMs, errorCode, images } = event.payload;
        item.result = { ok, llm, display, durationMs, errorCode, ...(images?.length ? { images } : {}) };
        if (item.status !== "rejected") item.status = ok ? "done" : "failed";
        break;
      }
      case "approval_requested": {
        const p = event.payload;
        t.pending.push(p.approvalId);
        if (p.kind === "question") {
          const item = {
            kind: "question" as const,
            approvalId: p.approvalId,
            toolCallId: p.toolCallId,
            question: p.question ?? p.title,
            options: p.options ?? [],
            multiSelect: p.multiSelect ?? false,
          };
          questions.set(p.approvalId, item);
          out.push(item);
        } else {
          const item = tools.get(p.toolCallId);
          if (item) {
            item.status = "awaiting_approval";
            item.approvalId = p.approvalId;
            item.approvalReason = p.reason;
            item.approvalCommands = p.commands;
          }
        }
        break;
      }
      case "approval_resolved": {
        const p = event.payload;
        t.pending = t.pending.filter((id) => id !== p.approvalId);
        const question = questions.get(p.approvalId);
        if (question) {
          question.by = p.by;
          if (p.decision === "reject") question.declined = p.feedback ?? "";
          else question.answer = p.answer;
          break;
        }
        const item = tools.get(p.toolCallId);
        if (!item) break;
        item.resolvedBy = p.by;
        item.feedback = p.feedback;
        item.status = p.decision === "reject" ? "rejected" : "running";
        break;
      }
      case "usage":
        t.usage = event.payload.session;
        t.costUsd = event.payload.sessionCostUsd;
        break;
      case "model_retry": {
        const { attempt, attempts, delayMs, message } = event.payload;
        const wait = delayMs >= 1000 ? `${Math.round(delayMs / 1000)} s` : `${delayMs} ms`;
        out.push({
          kind: "notice",
          seq: event.seq,
          text: `The model did not answer (${message}). Trying again in ${wait}: attempt ${attempt} of ${attempts}.`,
        });
        break;
      }
      case "error":
        out.push({ kind: "error", seq: event.seq, code: event.payload.code, message: event.payload.message });
        break;
      case "turn_finished": {
        for (const item of assistant.values()) item.streaming = false;
        const notice = event.payload.message ?? NOTICES[event.payload.reason];
        if (notice && event.payload.reason !== "completed" && event.payload.reason !== "error")
          out.push({ kind: "notice", seq: event.seq, text: notice });
        break;
      }
      case "compaction":
        out.push({ kind: "compaction", seq: event.seq, summary: event.payload.summary });
        break;
      case "subagent_started": {
        const item = {
          kind: "subagent" as const,
          toolCallId: event.payload.toolCallId,
          childSessionId: event.payload.childSessionId,
          index: event.payload.index,
          prompt: event.payload.prompt,
          status: "running" as const,
        };
        subagents.set(item.childSessionId, item);
        out.push(item);
        break;
      }
      case "subagent_finished": {
        const item = subagents.get(event.payload.childSessionId);
        if (item) Object.assign(item, { status: event.payload.ok ? "done" : "failed", result: event.payload.result });
        break;
      }
      case "status":
        t.status = event.payload.status;
        break;
      case "checkpoint": {
        t.reviewSeq = event.seq;
        const item = {
          kind: "checkpoint" as const,
          seq: event.seq,
          checkpointId: event.payload.checkpointId,
          turnId: event.payload.turnId,
          filesChanged: event.payload.filesChanged,
        };
        if (turnTop?.turnId === item.turnId && turnTop.list === out) out.splice(turnTop.index, 0, item);
        else out.push(item);
        break;
      }
      case "restore": {
        const item = { kind: "restore" as const, seq: event.seq, ...event.payload, undone: false };
        restores.set(item.undoId, item);
        out.push(item);
        t.reviewSeq = event.seq;
        break;
      }
      case "restore_undone": {
        const item = restores.get(event.payload.undoId);
        if (item) item.undone = true;
        t.reviewSeq = event.seq;
        break;
      }
      case "pull_request_opened":
        out.push({ kind: "pull_request", seq: event.seq, ...event.payload });
        break;
      case "network_denied":
        for (const host of event.payload.hosts) {
          const item = { kind: "network" as const, seq: event.seq, toolCallId: event.payload.toolCallId, host };
          denials.push(item);
          out.push(item);
        }
        break;
      case "hook_ran": {
        const { turnId: _turn, exitCode: _exit, ...hook } = event.payload;
        out.push({ kind: "hook", seq: event.seq, ...hook });
        break;
      }
      case "hooks_held":
        out.push({ kind: "notice", seq: event.seq, text: event.payload.reason });
        break;
      case "network_host_allowed":
        // Every card still asking about this host is answered: the host is on the list now.
        for (const item of denials)
          if (item.host.toLowerCase() === event.payload.host && !item.allowedBy) item.allowedBy = event.payload.by;
        break;
      case "review_base":
      case "rewind":
        t.reviewSeq = event.seq;
        break;
      case "turn_started": {
        const label = event.payload.context ? contextLabel(event.payload.context) : "";
        if (label) out.push({ kind: "context", seq: event.seq, turnId: event.payload.turnId, label });
        turnTop = { turnId: event.payload.turnId, list: out, index: out.length };
        break;
      }
    }
  }
  out = t.items;

  for (const delta of provisional?.values() ?? []) {
    if (delta.seq > t.lastSeq) assistantItem(delta.stepId).text += delta.text;
  }
  return t;
}

/** "3 memories, AGENTS.md", or "" when the prompt carried nothing from the project. */
export function contextLabel(context: { memories: number; files: string[] }): string {
  const parts = [
    ...(context.memories ? [`${context.memories} ${context.memories === 1 ? "memory" : "memories"}`] : []),
    ...context.files,
  ];
  return parts.join(", ");
}
