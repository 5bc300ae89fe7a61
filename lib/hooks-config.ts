import { z } from "zod";
import { globMatch, pathMatches } from "@/lib/glob-match";

// A project's hooks: `.tandem/hooks.json` in the repository, in the shape Claude Code's settings
// and Gemini CLI's hooks have: `{ "hooks": { "<event>": [{ "matcher", "paths"?, "hooks": [{
// "type": "command", "command", "timeout"? }] }] } }`. The file is the repository's, so it is
// hostile until a project admin approved exactly these bytes (server/agent/hooks.ts).

export const HOOKS_FILE = ".tandem/hooks.json";
export const HOOKS_MAX_BYTES = 64 * 1024;
export const HOOK_DEFAULT_TIMEOUT_S = 60;
export const HOOK_MAX_TIMEOUT_S = 600;

export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "FileWritten"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Gemini CLI's names for the same events. */
const ALIASES: Record<string, HookEvent> = { BeforeTool: "PreToolUse", AfterTool: "PostToolUse" };

const command = z.strictObject({
  type: z.literal("command"),
  command: z.string().trim().min(1).max(2_000),
  /** Seconds, as Claude Code has it. */
  timeout: z.number().int().min(1).max(HOOK_MAX_TIMEOUT_S).optional(),
});

const entry = z.strictObject({
  /** Tool names separated by `|`, each a glob (`*`, `mcp__*`); empty or absent: every tool. */
  matcher: z.string().max(500).optional(),
  /** Globs of workspace paths the call (or the write) must touch, e.g. `src/**\/*.ts`. */
  paths: z.array(z.string().min(1).max(300)).max(50).optional(),
  hooks: z.array(command).min(1).max(10),
});

const file = z.strictObject({
  hooks: z.record(z.string(), z.array(entry).max(20)),
});

export type HookCommand = z.infer<typeof command>;
export type HookEntry = z.infer<typeof entry>;
export type HooksConfig = Record<HookEvent, HookEntry[]>;

export type HooksParse = { ok: true; config: HooksConfig } | { ok: false; problem: string };

/** Parses the hooks file's text; the problem names where it is wrong. */
export function parseHooks(text: string): HooksParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `${HOOKS_FILE} is not JSON: ${(error as Error).message}` };
  }
  const parsed = file.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, problem: `${HOOKS_FILE}: ${issue.path.join(".") || "(file)"}: ${issue.message}` };
  }
  const config: HooksConfig = { PreToolUse: [], PostToolUse: [], FileWritten: [] };
  for (const [name, entries] of Object.entries(parsed.data.hooks)) {
    const event = ALIASES[name] ?? (HOOK_EVENTS as readonly string[]).find((e) => e === name);
    if (!event) return { ok: false, problem: `${HOOKS_FILE}: unknown event "${name}" (use ${HOOK_EVENTS.join(", ")})` };
    config[event as HookEvent].push(...entries);
  }
  return { ok: true, config };
}

/**
 * The hook commands for an event: entries whose matcher names the tool (globs, no regular
 * expressions: the file is untrusted text the server evaluates) and, when they list `paths`,
 * touch one of those paths.
 */
export function matchingHooks(
  config: HooksConfig,
  event: HookEvent,
  toolName: string,
  paths: readonly string[],
): HookCommand[] {
  return config[event].flatMap((e) => {
    const names = (e.matcher ?? "").split("|").map((m) => m.trim());
    const toolMatches = names.every((m) => m === "") || names.some((m) => m !== "" && globMatch(m, toolName));
    if (!toolMatches) return [];
    if (e.paths && !paths.some((p) => e.paths!.some((g) => pathMatches(g, p)))) return [];
    return e.hooks;
  });
}

/** The workspace paths a tool call's input names (path, file_path, from, to, paths, operations[].path...). */
export function pathsOfInput(input: unknown): string[] {
  const out = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (!value || typeof value !== "object" || depth > 3) return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === "string" && ["path", "file_path", "from", "to"].includes(key)) out.add(v.replace(/^\.\//, ""));
      else if (Array.isArray(v))
        for (const item of v.slice(0, 200)) visit(key === "paths" ? { path: item } : item, depth + 1);
    }
  };
  visit(input, 0);
  return [...out];
}
