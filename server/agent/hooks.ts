import {
  HOOK_DEFAULT_TIMEOUT_S,
  HOOKS_FILE,
  HOOKS_MAX_BYTES,
  matchingHooks,
  parseHooks,
  pathsOfInput,
  type HookCommand,
  type HookEvent,
  type HooksConfig,
} from "@/lib/hooks-config";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { isWorkspaceError, type Workspace } from "@/server/workspace";
import { runSandboxed } from "@/server/tools/discovery/discovered-tools";
import { refusedUnattended } from "@/server/agent/command-gate";
import type { Policy } from "@/server/agent/policy";
import type { CheckpointStore } from "@/server/workspace";

// The project's hooks (lib/hooks-config.ts): commands the repository's `.tandem/hooks.json` asks to
// run before a tool call, after it, and after a file write. The file is the repository's, so it is
// hostile: hooks run only while its bytes are exactly those a project admin approved in Settings
// (their sha256 is stored); a changed file waits for approval again, a link is never followed. A
// hook runs in the sandbox with no network and no secret (nobody's, not the project's), under the
// project's deny rules and command guard, and is killed with its process group at its timeout.

export type HooksState =
  | { state: "none" }
  | { state: "invalid"; digest: string; problem: string }
  | { state: "unapproved" | "approved"; digest: string; config: HooksConfig; text: string };

const LINK_REFUSAL = `${HOOKS_FILE} is a link; hooks are read only from a regular file.`;

/** What `.tandem/hooks.json` holds now, judged against the digest a project admin approved. */
export async function readHooks(workspace: Workspace, approvedDigest: string | null): Promise<HooksState> {
  let read: Awaited<ReturnType<Workspace["read"]>>;
  try {
    // Admitted only as itself: a link (to another file, or a linked .tandem folder) is refused.
    read = await workspace.read(HOOKS_FILE, { admits: (real) => real === HOOKS_FILE, refusal: LINK_REFUSAL });
  } catch (error) {
    if (isWorkspaceError(error) && error.code === "NOT_FOUND" && error.message !== LINK_REFUSAL)
      return { state: "none" };
    const problem = error instanceof Error ? error.message : String(error);
    return { state: "invalid", digest: "", problem };
  }
  if (read.kind !== "text" || read.size > HOOKS_MAX_BYTES)
    return { state: "invalid", digest: read.version, problem: `${HOOKS_FILE} must be a JSON text of at most 64 KB.` };
  const parsed = parseHooks(read.content);
  if (!parsed.ok) return { state: "invalid", digest: read.version, problem: parsed.problem };
  const state = approvedDigest !== null && approvedDigest === read.version ? "approved" : "unapproved";
  return { state, digest: read.version, config: parsed.config, text: read.content };
}

export type HookRun = {
  hookEvent: HookEvent;
  command: string;
  outcome: "ok" | "blocked" | "failed" | "timed_out" | "refused";
  exitCode: number | null;
  output: string;
};

type Call = {
  turnId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The call may change workspace files (shell, workflows, MCP tools...), not only through the file tools that report their writes. */
  changesWorkspace?: boolean;
};

export type TurnHooks = {
  /** Runs PreToolUse hooks; a reason when one blocks the call. */
  before(call: Call): Promise<{ blocked: string | null }>;
  /**
   * Runs PostToolUse hooks, then FileWritten hooks per written path (those the call reported, and
   * those a call that changes the workspace otherwise changed); what a hook says to the model, if anything.
   */
  after(call: Call, result: { ok: boolean; llm: string }, written: readonly string[]): Promise<string | null>;
};

const OUTPUT_SHOWN = 4_000;
/**
 * FileWritten runs for files a call changed without reporting them, at most: one shell command can
 * write thousands (an unpacked archive), and each run is a sandboxed process the turn waits for.
 */
export const MAX_FOUND_WRITE_HOOKS = 25;

export function turnHooks(options: {
  workspace: Workspace;
  approvedDigest: string | null;
  sandbox: Sandbox;
  projectId: string;
  sessionId: string;
  policy: Policy;
  signal: AbortSignal;
  /** Shows a hook's run in the session. */
  ran(call: Call, run: HookRun): Promise<void>;
  /** Tells the session once that the hooks file waits for a project admin's approval (or is broken). */
  held(call: Call, reason: string): Promise<void>;
  /**
   * The tree's checkpoint store: what a call changed without reporting it (a shell command's
   * `echo x > a.ts`) is found by recording the workspace before the call and comparing after it.
   */
  changes?(): Promise<Pick<CheckpointStore, "mark" | "changedSince">>;
}): TurnHooks {
  // Keyed by the call as this turn made it, never by the model's id (which it may repeat).
  const marks = new WeakMap<Call, string>();

  /** The files a call changed that it did not report, from the mark taken before it; deletions are not writes. */
  async function changedBy(call: Call): Promise<string[]> {
    const mark = marks.get(call);
    if (!mark || !options.changes) return [];
    marks.delete(call);
    // As with the turn's checkpoint: a store that fails costs the hooks of those files, not the call.
    const changes = await options
      .changes()
      .then((store) => store.changedSince(mark))
      .catch(() => []);
    return changes.filter((c) => c.status !== "deleted").map((c) => c.path);
  }
  let loaded: Promise<HooksConfig | null> | undefined;
  // Read once per turn: the bytes judged are the bytes run, whatever the file becomes meanwhile.
  const config = (call: Call) =>
    (loaded ??= readHooks(options.workspace, options.approvedDigest).then(async (found) => {
      if (found.state === "approved") return found.config;
      if (found.state === "unapproved")
        await options.held(
          call,
          `${HOOKS_FILE} is not approved${options.approvedDigest ? " (it changed since a project admin approved it)" : ""}: its hooks do not run until a project admin approves them in the project's settings.`,
        );
      if (found.state === "invalid") await options.held(call, `The project's hooks do not run: ${found.problem}`);
      return null;
    }));

  async function run(event: HookEvent, hook: HookCommand, stdin: object): Promise<HookRun> {
    const refused = await refusedUnattended(options.policy, hook.command);
    if (refused)
      return { hookEvent: event, command: hook.command, outcome: "refused", exitCode: null, output: refused };
    const timeoutS = hook.timeout ?? HOOK_DEFAULT_TIMEOUT_S;
    const result = await runSandboxed({
      workspaceRoot: options.workspace.root,
      sandbox: options.sandbox,
      projectId: options.projectId,
      network: "none",
      script: hook.command,
      stdin: JSON.stringify({ session_id: options.sessionId, hook_event_name: event, ...stdin }),
      timeoutMs: timeoutS * 1000,
      signal: options.signal,
    });
    const output = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join("\n").slice(-OUTPUT_SHOWN);
    const base = { hookEvent: event, command: hook.command, exitCode: result.exitCode };
    if (result.timedOut)
      return { ...base, outcome: "timed_out", output: `Killed after ${timeoutS} s. ${output}`.trim() };
    if (result.exitCode === 2) return { ...base, outcome: "blocked", output: result.stderr.trim() || output };
    const decision = jsonDecision(result.stdout);
    if (result.exitCode === 0 && decision) return { ...base, outcome: "blocked", output: decision };
    return { ...base, outcome: result.exitCode === 0 ? "ok" : "failed", output };
  }

  async function runAll(event: HookEvent, call: Call, paths: readonly string[], stdin: object): Promise<HookRun[]> {
    const hooks = await config(call);
    if (!hooks) return [];
    const runs: HookRun[] = [];
    for (const hook of matchingHooks(hooks, event, call.toolName, paths)) {
      const done = await run(event, hook, stdin);
      await options.ran(call, done);
      runs.push(done);
      if (done.outcome === "blocked" && event === "PreToolUse") break;
    }
    return runs;
  }

  return {
    async before(call) {
      const runs = await runAll("PreToolUse", call, pathsOfInput(call.input), {
        tool_name: call.toolName,
        tool_input: call.input,
      });
      const block = runs.find((r) => r.outcome === "blocked");
      if (!block && call.changesWorkspace && options.changes && (await config(call))?.FileWritten.length) {
        const mark = await options
          .changes()
          .then((store) => store.mark())
          .catch(() => null);
        if (mark) marks.set(call, mark);
      }
      return { blocked: block ? block.output || `the hook \`${block.command}\` blocked it` : null };
    },
    async after(call, result, reported) {
      const hooks = await config(call);
      const unreported = (await changedBy(call)).filter((p) => !reported.includes(p));
      // Of those, the files a FileWritten hook takes.
      const found = unreported.filter(
        (p) => hooks && matchingHooks(hooks, "FileWritten", call.toolName, [p]).length > 0,
      );
      const response = { ok: result.ok, text: result.llm.slice(0, 10_000) };
      const runs = await runAll("PostToolUse", call, [...pathsOfInput(call.input), ...reported, ...unreported], {
        tool_name: call.toolName,
        tool_input: call.input,
        tool_response: response,
      });
      for (const file of [...reported, ...found.slice(0, MAX_FOUND_WRITE_HOOKS)])
        runs.push(...(await runAll("FileWritten", call, [file], { tool_name: call.toolName, file_path: file })));
      // As Claude Code has it: what a hook exits 2 with after the fact is feedback for the model.
      const feedback = runs
        .filter((r) => r.outcome === "blocked" && r.output)
        .map((r) => `[hook ${r.hookEvent} \`${r.command}\`] ${r.output}`);
      if (found.length > MAX_FOUND_WRITE_HOOKS)
        feedback.push(
          `[hooks] FileWritten hooks ran for the first ${MAX_FOUND_WRITE_HOOKS} of the ${found.length} files this call changed that they watch; run what they do on the rest yourself if it matters.`,
        );
      return feedback.length ? feedback.join("\n") : null;
    },
  };
}

/** Claude Code's JSON answer on stdout: `{"decision": "block", "reason": "..."}`; the reason, when it blocks. */
function jsonDecision(stdout: string): string | null {
  const text = stdout.trim();
  if (!text.startsWith("{")) return null;
  try {
    const value = JSON.parse(text) as { decision?: unknown; reason?: unknown };
    if (value.decision !== "block" && value.decision !== "deny") return null;
    return typeof value.reason === "string" && value.reason ? value.reason : "blocked by a hook";
  } catch {
    return null;
  }
}
