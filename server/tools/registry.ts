import { isWorkspaceError, type Workspace } from "@/server/workspace";
import { roomFor } from "@/server/workspace/write-budget";
import {
  effectOf,
  type CallPlan,
  type Tool,
  type ToolContext,
  type ToolQuestion,
  type ToolResult,
  type WebSearchBackend,
} from "./define-tool";
import { CORE_TOOLS, WEB_SEARCH_TOOL } from "./core-tools";
import { failure, llmSize, resultFromError, textOf } from "./result";
import { DEFAULT_LIMITS, cutNote, cutText } from "./truncate";

/*
 * How the agent runtime uses this module, per run:
 *   const tools = buildToolSet({ coreTools, excludeTools, extraTools, webSearch });
 *   for each tool: inputSchema = jsonSchema(inputJsonSchema(tool, dialect)) (./schema),
 *   on a call: describeCall(tool, raw) for the UI; callQuestion(tool, raw) for a tool that asks people;
 *     approval = policy(tool.kind) || toolForcesApproval(...);
 *   const run = await runTool(tool, raw, ctx)  // never throws; run.llm / run.display / run.metrics
 *   run.llm goes into the session's log as a tool_result, which the model reads (lib/model-transcript.ts).
 */

/** The tools of one run, by name (what the model calls). */
export type ToolSet = Record<string, Tool>;

export interface ToolSetOptions {
  /** The base set; defaults to the core tools. */
  tools?: readonly Tool[];
  /** The project's allow-list: when set, only these core tools (extra tools are not filtered). */
  coreTools?: readonly string[];
  /** The project's deny-list, applied to core and extra tools alike. */
  excludeTools?: readonly string[];
  /** MCP and discovered tools; a name that clashes with an earlier tool is skipped. */
  extraTools?: readonly Tool[];
  /** web_search is registered only when a backend is configured. */
  webSearch?: WebSearchBackend;
}

/** Core tools, minus `excludeTools`, or only `coreTools` when set; then the extra tools. */
export function buildToolSet(options: ToolSetOptions = {}): ToolSet {
  const base = [
    ...(options.tools ?? CORE_TOOLS),
    ...(options.webSearch && !options.tools?.includes(WEB_SEARCH_TOOL) ? [WEB_SEARCH_TOOL] : []),
  ];
  const only = options.coreTools && options.coreTools.length > 0 ? new Set(options.coreTools) : null;
  const excluded = new Set(options.excludeTools ?? []);
  const set: ToolSet = {};
  for (const tool of base) {
    if (only && !only.has(tool.name)) continue;
    if (excluded.has(tool.name)) continue;
    set[tool.name] = tool;
  }
  for (const tool of options.extraTools ?? []) {
    if (excluded.has(tool.name) || tool.name in set) continue;
    set[tool.name] = tool;
  }
  return set;
}

export type ParsedInput<I> = { ok: true; input: I } | { ok: false; result: ToolResult };

/** Validates raw model input with the tool's zod schema; the error result names the bad fields. */
export function parseToolInput<I>(tool: Tool<I>, raw: unknown): ParsedInput<I> {
  const parsed = tool.input.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, input: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "(input)";
    return `${field}: ${issue.message}`;
  });
  return {
    ok: false,
    result: failure(
      "INVALID_INPUT",
      `Invalid input for ${tool.name}. ${problems.join("; ")}. Fix these fields and call it again.`,
      {
        fields: parsed.error.issues.map((issue) => issue.path.join(".")),
      },
    ),
  };
}

/** The one-line description of a call for the UI; the tool name when the input does not parse. */
export function describeCall(tool: Tool, raw: unknown): string {
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return tool.name;
  try {
    return tool.describe(parsed.data);
  } catch {
    return tool.name;
  }
}

/**
 * Whether the tool itself insists on approval for this input. The runtime combines this with the
 * project's approval policy (which decides by `tool.kind`); false when the input does not parse.
 */
export async function toolForcesApproval(tool: Tool, raw: unknown, ctx: ToolContext): Promise<boolean | "always"> {
  if (!tool.needsApproval) return false;
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return false;
  return tool.needsApproval(parsed.data, ctx);
}

/** What a call will run (see `Tool.plan`): the tool's own plan, else the input's `command`; null for input that does not parse. */
export async function callPlan(tool: Tool, raw: unknown, ctx: ToolContext): Promise<CallPlan | null> {
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return null;
  if (tool.plan) return tool.plan(parsed.data, ctx);
  const command = (parsed.data as { command?: unknown } | null)?.command;
  return typeof command === "string" ? { commands: [command] } : null;
}

/** The question a call puts to people (see `Tool.question`); null for other tools or input that does not parse. */
export function callQuestion(tool: Tool, raw: unknown): ToolQuestion | null {
  if (!tool.question) return null;
  const parsed = tool.input.safeParse(raw ?? {});
  return parsed.success ? tool.question(parsed.data) : null;
}

export interface ToolCallMetrics {
  tool: string;
  durationMs: number;
  ok: boolean;
  errorCode?: string;
  /** Bytes of what the model received (after truncation). */
  resultBytes: number;
  truncated: boolean;
}

export interface ToolRun extends ToolResult {
  metrics: ToolCallMetrics;
}

const stateLocks = new WeakMap<Workspace, Promise<unknown>>();

/** State-changing tools run one at a time per workspace; read-only kinds run alongside anything. */
function serialized<T>(workspace: Workspace, task: () => Promise<T>): Promise<T> {
  const previous = stateLocks.get(workspace) ?? Promise.resolve();
  const run = previous.then(task, task);
  stateLocks.set(
    workspace,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * Why a tool may not write into the workspace now (the project is past its disk budget), else
 * null: as commands see it (the sandbox's checks), and as every write of the server does
 * (workspace/write-budget.ts), which also covers a project that runs no command now.
 */
async function writeRefusal(ctx: ToolContext): Promise<string | null> {
  const full = await ctx.sandbox.diskFull?.();
  if (full) return `${full} Delete files (with the shell's rm, or in the file tree), then write again.`;
  return roomFor(ctx.workspace).then(
    () => null,
    (error: unknown) => (isWorkspaceError(error) && error.code === "DISK_FULL" ? error.message : Promise.reject(error)),
  );
}

/**
 * Runs one call: validate → execute (serialized per workspace unless read-only) → cut the model's
 * text once, saving the whole of it → metrics. Never throws: every failure is a result with a code.
 * Approval is decided by the caller before this is called.
 */
export async function runTool(tool: Tool, raw: unknown, ctx: ToolContext): Promise<ToolRun> {
  const started = performance.now();
  const parsed = parseToolInput(tool, raw);
  let result: ToolResult;
  let refusal: string | null;
  if (!parsed.ok) {
    result = parsed.result;
  } else if (ctx.signal.aborted) {
    result = failure("ABORTED", "The call was cancelled before it started.");
  } else if ((tool.kind === "edit" || tool.mutates?.(parsed.input)) && (refusal = await writeRefusal(ctx))) {
    result = failure("DISK_FULL", refusal);
  } else {
    const execute = () => tool.execute(parsed.input, ctx).catch((error: unknown) => resultFromError(error, ctx.signal));
    const parallel = effectOf(tool, raw) === "none";
    result = await (parallel ? execute() : serialized(ctx.workspace, execute));
  }
  const { result: shown, truncated } = await truncateResult(tool, result, ctx);
  return {
    ...shown,
    metrics: {
      tool: tool.name,
      durationMs: Math.round(performance.now() - started),
      ok: !shown.error,
      ...(shown.error ? { errorCode: shown.error.code } : {}),
      resultBytes: llmSize(shown.llm),
      truncated,
    },
  };
}

async function truncateResult(
  tool: Tool,
  result: ToolResult,
  ctx: ToolContext,
): Promise<{ result: ToolResult; truncated: boolean }> {
  const own = { ...DEFAULT_LIMITS, ...tool.output };
  const limits = { ...own, maxChars: Math.min(own.maxChars, ctx.maxResultChars ?? own.maxChars) };
  const parts = typeof result.llm === "string" ? [{ type: "text" as const, text: result.llm }] : result.llm;
  let truncated = false;
  const cutParts = await Promise.all(
    parts.map(async (part) => {
      if (part.type !== "text") return part;
      const cut = cutText(part.text, limits);
      if (!cut) return part;
      truncated = true;
      const fullPath = result.fullOutputPath ?? (await ctx.outputs.save(tool.name, part.text).catch(() => undefined));
      const note = cutNote(cut, limits.keep, fullPath);
      return { type: "text" as const, text: limits.keep === "head" ? `${cut.text}\n${note}` : `${note}\n${cut.text}` };
    }),
  );
  if (!truncated) return { result, truncated };
  const llm = typeof result.llm === "string" ? textOf(cutParts) : cutParts;
  return { result: { ...result, llm }, truncated };
}
