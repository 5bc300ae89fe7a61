import type { z } from "zod";
import type { Workspace } from "@/server/workspace";
import type { SandboxMode } from "@/server/sandbox/launcher";
import type { NetworkPolicy } from "@/lib/egress-policy";
import type { SandboxLimits } from "@/lib/sandbox-limits";

export type SandboxSummary = {
  mode: SandboxMode;
  network: NetworkPolicy;
  limits: SandboxLimits | null;
  /** Why the project may not write more (its disk budget is reached), else null. */
  diskFull?(): Promise<string | null>;
};
import type { ShellSession } from "@/server/workspace/shell-session";
import type { ReadTracker } from "./read-tracker";
import type { Prefetcher } from "./prefetch";
import type { SessionLiveEdits } from "./live-edits";
import type { OutputStore } from "./output-store";
import type { ProjectLanguage } from "@/server/language/project-language";
import type { SessionBrowser } from "./agent-browser/session-browsers";
import type { ToolDisplay, ToolErrorCode, ToolKind } from "@/lib/tool-display";
import { toolDisplayName } from "@/lib/tool-call-shapes";

/** Kinds that never change the workspace or any stored state. */
const READ_ONLY_KINDS: ReadonlySet<ToolKind> = new Set<ToolKind>(["read", "search", "fetch", "think"]);
/** Kinds that change the workspace's files; the other changing kinds (memory, agent) change stored state. */
const WORKSPACE_KINDS: ReadonlySet<ToolKind> = new Set<ToolKind>(["edit", "execute"]);

/** What the model reads: text, or parts when a tool returns images. */
export type LlmPart = { type: "text"; text: string } | { type: "image"; data: string; mediaType: string };
export type LlmContent = string | LlmPart[];

export interface ToolError {
  code: ToolErrorCode;
  message: string;
}

export interface ToolResult {
  llm: LlmContent;
  display: ToolDisplay;
  /** Set when the call failed in a way the model can fix; `llm` then carries the same message. */
  error?: ToolError;
  /** When the tool already saved its complete output (shell), the truncation note points there. */
  fullOutputPath?: string;
  /** `llm` is a JSON document: the model receives it as JSON (a `json` tool output), not as text. */
  json?: boolean;
  /** Small structured facts for the UI and telemetry (paths touched, match counts, exit code). */
  meta?: Record<string, unknown>;
}

/** Live progress of a running call (shell output line by line, fetch status). */
export type ToolProgress =
  | { type: "output"; stream: "stdout" | "stderr"; text: string }
  | { type: "status"; text: string };

export interface FetchPolicy {
  /**
   * Hosts (name or "host:port") that skip the private-address check. Comes from server
   * configuration only (tests use it for local servers), never from the model.
   */
  allowHosts: readonly string[];
  /** Defaults: 30 s, 5 MB, 5 redirects, the system resolver. Server configuration (and tests) only. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  resolve?(hostname: string): Promise<{ address: string; family: number }[]>;
  /**
   * The project's network policy in force, which the server's own fetches for it obey
   * (project-network.ts); without it, the turn's `sandbox.network`.
   */
  projectNetwork?(projectId: string): Promise<NetworkPolicy>;
}

export type WebSearchBackend =
  | { kind: "searxng"; url: string }
  | { kind: "brave"; apiKey: string; url?: string }
  | { kind: "tavily"; apiKey: string; url?: string }
  | { kind: "duckduckgo"; url?: string };

/** Everything a tool may use. Built by the agent runtime for one call; tools read nothing else. */
export interface ToolContext {
  workspace: Workspace;
  projectId: string;
  sessionId: string;
  userId: string;
  /** Id of the model's tool call, when there is one (names output files and progress events). */
  toolCallId?: string;
  signal: AbortSignal;
  /** Streams progress to the UI while the call runs. */
  emit(progress: ToolProgress): void;
  /** Per agent session: what was read, for STALE_READ and repeat-read notes. Use `createReadTracker()`. */
  reads: ReadTracker;
  /** Per agent session: the persistent shell and its background jobs. Use `createShellSession()`. */
  shell: ShellSession;
  /** Tells people's open live editors about a file the call wrote (file-state.ts `recordWrite`); absent outside the main tree. */
  liveEdits?: SessionLiveEdits;
  /** Told each workspace path the call wrote (file-state.ts `recordWrite`), for the project's FileWritten hooks. */
  wrote?(path: string): void;
  /** Per agent session: files loaded ahead of the reads the agent is likely to make (prefetch.ts). */
  prefetch?: Prefetcher;
  /** Where complete outputs go when the result is cut. Use `workspaceOutputStore()`. */
  outputs: OutputStore;
  /** The sandbox commands run in: its mode, the project's network policy (name it to the model) and the limits. */
  sandbox: SandboxSummary;
  fetchPolicy: FetchPolicy;
  /** Runs `prompt` over fetched content with a small model; absent when no model is configured. */
  summarize?(prompt: string, content: string, signal: AbortSignal): Promise<string>;
  webSearch?: WebSearchBackend;
  /** The project's language servers (diagnostics, symbols, navigation); absent when none run for this caller. */
  language?: ProjectLanguage;
  /** The session's browser (agent-browser/), made on first use; absent when the server has no Chromium. */
  browser?(): Promise<SessionBrowser>;
  /** The person's time zone (IANA, from their browser, with their last message); absent means UTC. */
  timeZone?: string;
  /** Whether the model takes images in tool results; read_file describes images otherwise. */
  modelAcceptsImages?: boolean;
  /** The most characters of one result the model's window affords (truncate.ts), below the tool's own limit. */
  maxResultChars?: number;
  /**
   * The session's read and search tools (language tools, the repository map, knowledge search,
   * read-only MCP tools...): what a sub-agent it delegates to gets unless told otherwise.
   */
  childTools?: () => string[];
  /**
   * What was vetted before the call ran (its plan) and who approved it. `shell` refuses a command
   * the deny rules forbid, or one the destructive-command guard stops that is not among the
   * commands a person approved for this call (server/agent/command-gate.ts).
   */
  grant?: CallGrant;
}

/**
 * What a call will run, read before it runs: every shell command (the deny rules, the
 * destructive-command guard and the approval card see each one) and, when they come from a
 * definition in the workspace (a workflow), a digest of it, to which "approve always" binds.
 */
export type CallPlan = { commands: string[]; digest?: string };

/** Who let this call run and what was vetted: the plan the policy judged, and the person who approved it, if one did. */
export type CallGrant = { plan: CallPlan | null; approvedById: string | null };

export type ToolQuestion = { question: string; options?: string[]; multiSelect?: boolean };

/** How the wrapper cuts `llm` text that is too long (done once, there, for every tool). */
export interface OutputLimits {
  maxChars: number;
  maxLines: number;
  /** Which end to keep: the start of a listing, the end of a build log. */
  keep: "head" | "tail";
}

// biome-ignore lint/suspicious/noExplicitAny: a list of tools holds each with its own input type
export interface Tool<I = any> {
  name: string;
  /** The tool's name for people ("Read File"), from lib/tool-call-shapes.ts's one table. */
  displayName: string;
  kind: ToolKind;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  input: z.ZodType<I>;
  /** For adapted tools (MCP, discovered): the JSON schema the model sees instead of `input`'s. */
  inputSchema?: Record<string, unknown>;
  /** When the project has many tools, this one's schema waits behind `tool_search` (MCP, discovered). */
  deferrable?: boolean;
  /**
   * A built-in tool most turns never call: its schema waits behind `tool_search` (the model sees
   * its name there) `always`, or only for a model with a small window (`small-window`), where every
   * schema sent with each request is a larger share of what the model can read.
   */
  onDemand?: "always" | "small-window";
  /** Withheld from sub-agents: they start no agents of their own (delegate, workflow) and have no people to ask (ask_user). */
  mainAgentOnly?: boolean;
  /** `always`: every call asks a person, whatever the mode and allow rules (deny rules still win). */
  approval?: "always";
  /** One human line for the UI: "Edit src/app.ts", "Run npm test". */
  describe(input: I): string;
  /**
   * Lets a tool force approval for some inputs (the project's policy decides the rest by kind);
   * "always": these inputs ask whatever the mode and allow rules, as `approval: "always"` does.
   * Absent means the tool has no opinion.
   */
  needsApproval?(input: I, ctx: ToolContext): boolean | "always" | Promise<boolean | "always">;
  /**
   * For a tool that asks people something (ask_user): the question this call puts to them. The
   * runtime records it as a durable request, waits, and runs the tool once someone answered.
   */
  question?(input: I): ToolQuestion;
  /** What the call will run (see CallPlan); absent: the input's `command`, if it has one. */
  plan?(input: I, ctx: ToolContext): Promise<CallPlan | null>;
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
  /** For a read-only kind that changes the workspace for some inputs (web_fetch with download). */
  mutates?(input: I): boolean;
  output?: Partial<OutputLimits>;
}

/**
 * A tool with type inference: `defineTool({ name, kind, input: z.object(...), execute })`. Its
 * `displayName` comes from the browser's contract (lib/tool-call-shapes.ts), so both name it alike.
 */
export function defineTool<I>(tool: Omit<Tool<I>, "displayName">): Tool<I> {
  return { ...tool, displayName: toolDisplayName(tool.name) };
}

/** What a call may change: nothing, stored state only (memories, notes, agents), or the workspace. */
export type CallEffect = "none" | "state" | "workspace";

/**
 * The one answer to "does this call change anything", by the tool's kind and, for a read-only kind,
 * its `mutates` for this (raw) input. Calls that change nothing run in parallel with each other and
 * outside the workspace's queue; the others run one at a time, durably marked `tool_started` first;
 * those that change the workspace are preceded by the turn's checkpoint.
 */
export function effectOf(tool: Tool, input: unknown): CallEffect {
  if (WORKSPACE_KINDS.has(tool.kind)) return "workspace";
  if (!READ_ONLY_KINDS.has(tool.kind)) return "state";
  if (!tool.mutates) return "none";
  const parsed = tool.input.safeParse(input ?? {});
  return parsed.success && tool.mutates(parsed.data) ? "workspace" : "none";
}
