import { z } from "zod";
import { imageRefSchema } from "@/lib/images";

const mentionAttachmentSchema = z.object({
  ref: z.string(),
  kind: z.enum(["path", "url"]),
  ok: z.boolean(),
  text: z.string(),
});
export type MentionAttachment = z.infer<typeof mentionAttachmentSchema>;

// The session event log, shared by the server (which appends) and the browser (which folds).
// Every event has a gap-free `seq` per session. The transcript people see and the one sent to the
// model are both folds over this log (lib/session-transcript.ts, lib/model-transcript.ts).

export const SESSION_STATUSES = ["idle", "running", "waiting_approval", "interrupted", "failed"] as const;
export const sessionStatusSchema = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

/** `budget`: a team's or person's monthly budget was used up (server/agent/turn-spending.ts); the message says whose and who raises it. */
export const TURN_END_REASONS = [
  "completed",
  "cancelled",
  "step_limit",
  "loop_guard",
  "error",
  "interrupted",
  "budget",
] as const;

/** Error codes a person can act on; `message` says what to do. */
export const ERROR_CODES = [
  "auth", // bad or missing API key
  "unknown_model",
  "context_too_long",
  "rate_limited",
  "provider_unavailable",
  "stream_interrupted",
  "not_configured",
  "internal",
] as const;
export type SessionErrorCode = (typeof ERROR_CODES)[number];

const tokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative().default(0),
  reasoningTokens: z.number().int().nonnegative().default(0),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

const person = z.object({ id: z.string(), name: z.string() });
const turnId = z.string();
const stepId = z.string();
const answer = z.union([z.string(), z.array(z.string())]);

export const eventPayloadSchemas = {
  /**
   * `images`: pasted or dropped into the composer, by reference (lib/images.ts). `mentions`: the
   * `@path`/`@url` content attached with it (server/agent/mentions.ts); a path mention's text is
   * on the first path of the message (they are read together, as read_many_files does).
   */
  /** `timeZone`: the sender's (from their browser); the turn's scheduled tasks are read in it. */
  user_message: z.object({
    text: z.string(),
    authorName: z.string().optional(),
    images: z.array(imageRefSchema).optional(),
    mentions: z.array(mentionAttachmentSchema).optional(),
    timeZone: z.string().optional(),
  }),
  /** `context`: what the system prompt carried from the project this turn (memories shown whole, instruction files). */
  turn_started: z.object({
    turnId,
    model: z.string(),
    resumed: z.boolean().default(false),
    context: z.object({ memories: z.number().int().nonnegative(), files: z.array(z.string()) }).optional(),
  }),
  /** A coalesced run of streamed text (see server/agent/events.ts); `assistant_message` has the whole step's text. */
  assistant_delta: z.object({ turnId, stepId, text: z.string() }),
  /** `basedOnSeq`: the last event the model had seen when it wrote this step (see model-transcript.ts). */
  assistant_message: z.object({ turnId, stepId, text: z.string(), basedOnSeq: z.number().int().optional() }),
  reasoning: z.object({ turnId, stepId, text: z.string() }),
  tool_call: z.object({
    turnId,
    stepId,
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    basedOnSeq: z.number().int().optional(),
    /** One line for people, from the tool's `describe(input)`. */
    title: z.string(),
    /** read | search | edit | execute | fetch | memory | think | agent; "unknown" for a tool that does not exist. */
    kind: z.string(),
  }),
  /**
   * Written just before a call that changes things runs. A call with this and no result was cut
   * off mid-run (a crash): it is never run again silently (server/agent/tool-calls.ts).
   */
  tool_started: z.object({ turnId, toolCallId: z.string(), toolName: z.string() }),
  tool_result: z.object({
    turnId,
    toolCallId: z.string(),
    toolName: z.string(),
    ok: z.boolean(),
    /** What the model reads. */
    llm: z.string(),
    /** `llm` is a JSON document the model reads as JSON (a structured result). */
    json: z.literal(true).optional(),
    /** What people see (a diff, a file list...), as the tool shaped it. */
    display: z.unknown().optional(),
    durationMs: z.number().nonnegative(),
    errorCode: z.string().optional(),
    /** Images the tool returned for the model (read_file of an image, MCP image content), by reference. */
    images: z.array(imageRefSchema).optional(),
  }),
  approval_requested: z.object({
    approvalId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    /** `tool`: may this call run? `question`: the agent asks people (ask_user). */
    kind: z.enum(["tool", "question"]),
    title: z.string(),
    input: z.unknown(),
    reason: z.string().optional(),
    /** Every command the call will run, when they are not in its input (a workflow's `run` steps). */
    commands: z.array(z.string()).optional(),
    question: z.string().optional(),
    options: z.array(z.string()).optional(),
    multiSelect: z.boolean().optional(),
  }),
  approval_resolved: z.object({
    approvalId: z.string(),
    toolCallId: z.string(),
    decision: z.enum(["approve", "approve_always", "reject"]),
    feedback: z.string().optional(),
    answer: answer.optional(),
    by: person,
  }),
  usage: z.object({
    turnId,
    stepId,
    step: tokenUsageSchema,
    session: tokenUsageSchema,
    /** null when the model has no price set. */
    stepCostUsd: z.number().nullable(),
    sessionCostUsd: z.number(),
  }),
  /** The model could not be reached (or asked to wait): the step is tried again after `delayMs`. */
  model_retry: z.object({
    turnId,
    stepId,
    /** The attempt that comes next, of `attempts` in all. */
    attempt: z.number().int().positive(),
    attempts: z.number().int().positive(),
    delayMs: z.number().int().nonnegative(),
    message: z.string(),
  }),
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    turnId: turnId.optional(),
    detail: z.string().optional(),
  }),
  turn_finished: z.object({
    turnId,
    reason: z.enum(TURN_END_REASONS),
    message: z.string().optional(),
    steps: z.number().int(),
    /** A snapshot of the workspace as the turn left it (turns that took a checkpoint): the turn's changes end here. */
    endCheckpointId: z.string().optional(),
  }),
  compaction: z.object({
    summary: z.string(),
    /** Events up to and including this seq are replaced by the summary in what the model reads. */
    upToSeq: z.number().int(),
    estimatedTokens: z.number().int(),
    contextWindow: z.number().int(),
  }),
  subagent_started: z.object({
    toolCallId: z.string(),
    childSessionId: z.string(),
    index: z.number().int(),
    prompt: z.string(),
    tools: z.array(z.string()),
  }),
  subagent_finished: z.object({
    toolCallId: z.string(),
    childSessionId: z.string(),
    index: z.number().int(),
    ok: z.boolean(),
    result: z.string(),
  }),
  status: z.object({ status: sessionStatusSchema, reason: z.string().optional() }),
  /**
   * The workspace was snapshotted before the turn's first change (server/agent/turn-checkpoint.ts).
   * The session's first checkpoint is its review base (lib/review-log.ts).
   */
  checkpoint: z.object({
    checkpointId: z.string(),
    turnId,
    label: z.string(),
    filesChanged: z.number().int().nonnegative(),
  }),
  /** Someone accepted changes in the Changes view: diffs are now taken against `baseId`. */
  review_base: z.object({
    baseId: z.string(),
    previousBaseId: z.string(),
    path: z.string(),
    action: z.enum(["accept_hunk", "accept_file"]),
    by: person,
  }),
  /** Files were restored to checkpoint `checkpointId` (before turn `turnId`); `undoId` undoes it. */
  restore: z.object({
    checkpointId: z.string(),
    turnId,
    undoId: z.string(),
    files: z.array(z.string()),
    failed: z.array(z.object({ path: z.string(), message: z.string() })).default([]),
    rewound: z.boolean(),
    by: person,
  }),
  /** Events fromSeq..toSeq are hidden from the model and collapsed for people, unless the restore `undoId` is undone. */
  rewind: z.object({ fromSeq: z.number().int(), toSeq: z.number().int(), undoId: z.string() }),
  /** The restore that gave `undoId` was undone: files are back as they were before it. */
  restore_undone: z.object({ undoId: z.string(), by: person }),
  /** The sandbox's egress proxy refused these hosts during tool call `toolCallId`: the session offers to allow them. */
  network_denied: z.object({ turnId, toolCallId: z.string(), hosts: z.array(z.string()).min(1) }),
  /** One of the project's hooks (.tandem/hooks.json) ran around tool call `toolCallId`: what it printed, and whether it blocked. */
  hook_ran: z.object({
    turnId,
    toolCallId: z.string(),
    hookEvent: z.enum(["PreToolUse", "PostToolUse", "FileWritten"]),
    command: z.string(),
    outcome: z.enum(["ok", "blocked", "failed", "timed_out", "refused"]),
    exitCode: z.number().int().nullable(),
    output: z.string(),
  }),
  /** The project's hooks file is there but does not run (not approved, changed since, or broken): why. */
  hooks_held: z.object({ turnId, reason: z.string() }),
  /** A project admin added `host` to the project's network allow-list from this session. */
  network_host_allowed: z.object({ host: z.string(), by: person }),
  /** Someone opened a pull request through the git host's API (Source Control) while this session was open: everyone in it sees the link. */
  pull_request_opened: z.object({
    url: z.url({ protocol: /^https?$/ }),
    number: z.number().int(),
    title: z.string(),
    head: z.string(),
    base: z.string(),
    by: person,
  }),
} as const;

export type SessionEventType = keyof typeof eventPayloadSchemas;
export type EventPayload<T extends SessionEventType> = z.output<(typeof eventPayloadSchemas)[T]>;
export type EventInput<T extends SessionEventType> = z.input<(typeof eventPayloadSchemas)[T]>;

type EventOf<T extends SessionEventType> = {
  sessionId: string;
  seq: number;
  type: T;
  payload: EventPayload<T>;
  /** The person behind the event (a message, an answer); null for the agent. */
  authorId: string | null;
  createdAt: Date;
};
export type SessionEvent = { [T in SessionEventType]: EventOf<T> }[SessionEventType];
export type SessionEventOf<T extends SessionEventType> = EventOf<T>;

/** Parses a stored or received event, checking its payload against its type's schema. */
export function parseSessionEvent(raw: {
  sessionId: string;
  seq: number;
  type: string;
  payload: unknown;
  authorId: string | null;
  createdAt: Date | string;
}): SessionEvent {
  const schema = eventPayloadSchemas[raw.type as SessionEventType];
  if (!schema) throw new Error(`unknown session event type ${raw.type}`);
  return {
    sessionId: raw.sessionId,
    seq: raw.seq,
    type: raw.type,
    payload: schema.parse(raw.payload),
    authorId: raw.authorId,
    createdAt: new Date(raw.createdAt),
  } as SessionEvent;
}

// ---------------------------------------------------------------------------------------------
// The live stream: what `session.events` yields.
//
// Committed events come from the log, in seq order, each exactly once. Streamed text is also sent
// ahead of its commit as provisional deltas: `seq` is the seq the coalesced `assistant_delta`
// event WILL have, `offset` is where the text goes within it. When that event is committed it
// carries the whole run of text and replaces the provisional pieces for its seq, so a viewer
// shows text as it streams, and a viewer that reconnects (asking `afterSeq` = the last committed
// seq it holds) gets the committed version: no gap, no duplicate.
//
// What a subscriber missed (the history of a session it opens, a gap after a reconnect) comes as
// `events` batches of up to a page of the log, so opening a long session costs a few messages and
// renders, not one per event; live events come one at a time as `event`.

export type ProvisionalDelta = { seq: number; offset: number; text: string; turnId: string; stepId: string };
/**
 * Live output of a running tool (shell lines, fetch status), and a delegated sub-agent's activity
 * (its step, current tool and last lines, server/agent/subagent-activity.ts): shown while it runs, never stored.
 */
export type ToolProgressItem = {
  kind: "progress";
  toolCallId: string;
  progress:
    | { type: "output"; stream: "stdout" | "stderr"; text: string }
    | { type: "status"; text: string }
    | { type: "subagent"; childSessionId: string; step: number; tool: string | null; lines: string };
};
/** What is published live, as it happens. */
export type LiveItem =
  | { kind: "event"; event: SessionEvent }
  | ({ kind: "delta" } & ProvisionalDelta)
  | ToolProgressItem;
/** `more`: further batches of the history follow at once (a viewer may wait for the last to render). */
export type SessionStreamItem = LiveItem | { kind: "events"; events: SessionEvent[]; more: boolean };

/** The committed events an item carries, in seq order (none for deltas and progress). */
export function committedEvents(item: SessionStreamItem): SessionEvent[] {
  if (item.kind === "event") return [item.event];
  if (item.kind === "events") return item.events;
  return [];
}

/** The client's copy of a session's log: committed events plus the text streamed ahead of them. */
export type LiveLog = { events: SessionEvent[]; lastSeq: number; provisional: Map<number, ProvisionalDelta> };

export function emptyLiveLog(): LiveLog {
  return { events: [], lastSeq: 0, provisional: new Map() };
}

/** Applies one stream item; idempotent, so replays and overlaps are harmless. Mutates `log`. */
export function applyStreamItem(log: LiveLog, item: SessionStreamItem): LiveLog {
  if (item.kind === "event" || item.kind === "events") {
    const before = log.lastSeq;
    for (const event of committedEvents(item)) {
      if (event.seq <= log.lastSeq) continue;
      log.events.push(event);
      log.lastSeq = event.seq;
    }
    if (log.lastSeq > before)
      for (const seq of log.provisional.keys()) if (seq <= log.lastSeq) log.provisional.delete(seq);
    return log;
  }
  if (item.kind === "progress" || item.seq <= log.lastSeq) return log;
  const current = log.provisional.get(item.seq);
  const text = (current?.text ?? "").slice(0, item.offset);
  if (text.length < item.offset) return log; // a piece went missing: wait for the committed event
  log.provisional.set(item.seq, { ...item, text: text + item.text });
  return log;
}
