import { z } from "zod";
import type { CallPlan, ToolKind } from "@/server/tools/define-tool";
import type { CommandGuardConfig } from "@/lib/command-guard-config";
import { parseCommandLine, programName, type SimpleCommand } from "@/server/agent/shell-commands";

// The approval policy: which tool calls run at once, which wait for a person, which never run.
//
// Modes: `ask` (reads run freely; edits, writes, shell and fetch ask), `auto-edit` (edits and
// writes run; shell and fetch ask), `yolo` (nothing asks). Rules name a tool, and for shell
// commands optionally a command prefix. Deny wins over allow, and over the mode, even in yolo.
// A compound command (`a && b | c; d`) is allowed by rules only when every part is; a part that
// cannot be judged (command substitution) is never allowed by a rule. Commands are also read with
// the guard's shell parser (./shell-commands), which looks through `sudo`, `env X=1`, `sh -c '...'`
// and `$(...)`: a deny rule matches what any of those runs, and an allow rule must vouch for it. A call that runs several
// commands (a workflow) is judged on every one of them; a rule with a `digest` allows only the
// definition it was given for (an edited workflow asks again).

const SHELL_TOOL = "shell";

export const APPROVAL_MODES = ["ask", "auto-edit", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const ruleSchema = z.object({
  tool: z.string().min(1),
  /** For shell tools: the rule applies to commands starting with this (whole words). */
  commandPrefix: z.string().min(1).optional(),
  /** For a call that runs a definition from the workspace (a workflow): only the definition with this digest. */
  digest: z.string().min(1).optional(),
});
export type PolicyRule = z.infer<typeof ruleSchema>;
export const rulesSchema = z.array(ruleSchema);

/** `guard`: the destructive-command guard's settings (./command-guard); without it, no guard. */
export type Policy = { mode: ApprovalMode; allow: PolicyRule[]; deny: PolicyRule[]; guard?: CommandGuardConfig };

export type PolicyDecision = { action: "run" } | { action: "ask"; reason: string } | { action: "deny"; reason: string };

const ASKS: Record<ApprovalMode, ReadonlySet<ToolKind>> = {
  ask: new Set<ToolKind>(["edit", "execute", "fetch"]),
  "auto-edit": new Set<ToolKind>(["execute", "fetch"]),
  yolo: new Set<ToolKind>(),
};

export function parsePolicy(
  input: { approvalMode: string; allowRules: unknown; denyRules: unknown },
  sessionAllow: unknown = [],
): Policy {
  const mode = (APPROVAL_MODES as readonly string[]).includes(input.approvalMode)
    ? (input.approvalMode as ApprovalMode)
    : "ask";
  const rules = (value: unknown) => rulesSchema.safeParse(value).data ?? [];
  return { mode, allow: [...rules(input.allowRules), ...rules(sessionAllow)], deny: rules(input.denyRules) };
}

/** The shell command of a call, when the tool runs one. */
export function commandOf(input: unknown): string | null {
  if (input && typeof input === "object" && "command" in input && typeof input.command === "string")
    return input.command;
  return null;
}

/**
 * Splits a shell command into the simple commands it runs: on `&&`, `||`, `;`, `|`, `&` and new
 * lines, outside quotes. Returns null when it contains command substitution or a subshell, which
 * no prefix rule can vouch for.
 */
export function splitCommand(command: string): string[] | null {
  const parts: string[] = [];
  let current = "";
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (quote === '"' && (c === "`" || (c === "$" && command[i + 1] === "("))) return null;
      current += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === "`" || (c === "$" && command[i + 1] === "(") || c === "(" || c === ")") {
      return null;
    } else if (c === "\\" && i + 1 < command.length) {
      current += c + command[++i];
    } else if (c === ";" || c === "\n" || c === "|" || c === "&") {
      if (current.trim()) parts.push(current.trim());
      current = "";
      if ((c === "|" || c === "&") && command[i + 1] === c) i++;
    } else current += c;
  }
  if (quote) return null;
  if (current.trim()) parts.push(current.trim());
  return parts;
}

/** `prefix` matches `command` on whole words: `git` matches `git status`, not `gitk`. */
function startsWithWords(command: string, prefix: string): boolean {
  const words = command.trim().split(/\s+/);
  while (words.length > 1 && /^[A-Za-z_]\w*=/.test(words[0]!)) words.shift(); // FOO=1 cmd → cmd
  const want = prefix.trim().split(/\s+/);
  return want.every((w, i) => words[i] === w);
}

function ruleMatches(rule: PolicyRule, toolName: string, part: string | null, digest?: string): boolean {
  if (rule.tool !== toolName && rule.tool !== "*") return false;
  if (rule.digest !== undefined && rule.digest !== digest) return false;
  if (!rule.commandPrefix) return true;
  return part !== null && startsWithWords(part, rule.commandPrefix);
}

/**
 * `toolInsists`: true asks unless a rule or yolo allows; "always" asks whatever the mode and allow
 * rules. `guardReasons` (from the destructive-command guard) ask whatever the mode and allow rules,
 * with those reasons on the card; only deny rules outrank them.
 */
export function decide(
  policy: Policy,
  tool: { name: string; kind: ToolKind },
  input: unknown,
  toolInsists: boolean | "always" = false,
  guardReasons: readonly string[] = [],
  plan?: CallPlan | null,
): PolicyDecision {
  const single = commandOf(input);
  const commands = plan !== undefined ? (plan?.commands ?? null) : single === null ? null : [single];
  const digest = plan?.digest;

  for (const rule of policy.deny) {
    if (!rule.commandPrefix && ruleMatches(rule, tool.name, null, digest))
      return { action: "deny", reason: `The project's policy does not allow ${tool.name}.` };
  }
  for (const command of commands ?? []) {
    const denied = deniedCommand(policy, command);
    if (denied) return { action: "deny", reason: denied };
  }

  if (guardReasons.length > 0) return { action: "ask", reason: guardReasons.join(" ") };
  if (toolInsists === "always") return { action: "ask", reason: `${tool.name} always asks for approval.` };
  if (policy.mode === "yolo") return { action: "run" };

  const allowedByRules =
    commands === null
      ? policy.allow.some((rule) => !rule.commandPrefix && ruleMatches(rule, tool.name, null, digest))
      : policy.allow.some((rule) => rule.digest !== undefined && ruleMatches(rule, tool.name, null, digest)) ||
        (commands.length > 0 &&
          commands.every((command) => {
            const parts = splitCommand(command);
            return (
              parts !== null &&
              parts.length > 0 &&
              parts.every((part) => policy.allow.some((rule) => ruleMatches(rule, tool.name, part, digest))) &&
              parsedAllowed(policy, tool.name, command, digest)
            );
          }));
  if (allowedByRules) return { action: "run" };
  if (toolInsists) return { action: "ask", reason: `${tool.name} asks for approval for this input.` };
  if (ASKS[policy.mode].has(tool.kind)) {
    return { action: "ask", reason: `In "${policy.mode}" mode, ${tool.kind} tools need approval.` };
  }
  return { action: "run" };
}

/** Whether a deny rule's command prefix forbids this command; unsplittable commands are checked as a whole. */
function deniedBy(prefix: string, command: string): boolean {
  const parts = splitCommand(command);
  if ((parts ?? [command]).some((part) => startsWithWords(part, prefix))) return true;
  const parsed = parseCommandLine(command);
  if (parsed.ok && parsed.commands.some((c) => argvStartsWith(c, prefix))) return true;
  return (parts === null || !parsed.ok) && command.includes(prefix);
}

/** What the parser found runs (`sudo rm x` → `rm x`) starts with the prefix, on whole words. */
function argvStartsWith(cmd: SimpleCommand, prefix: string): boolean {
  const want = prefix.trim().split(/\s+/);
  return want.every((w, i) => (i === 0 ? cmd.argv[0] === programName(w) : cmd.argv[i] === w));
}

/** Every command the parser finds in it is allowed by some rule (the split parts are checked too). */
function parsedAllowed(policy: Policy, toolName: string, command: string, digest?: string): boolean {
  const parsed = parseCommandLine(command);
  if (!parsed.ok || parsed.commands.length === 0) return false;
  return parsed.commands.every((c) =>
    policy.allow.some(
      (rule) =>
        (rule.tool === toolName || rule.tool === "*") &&
        (rule.digest === undefined || rule.digest === digest) &&
        (!rule.commandPrefix || argvStartsWith(c, rule.commandPrefix)),
    ),
  );
}

/**
 * Why the project's deny rules forbid this command, or null. They hold for every command whatever
 * runs it (the shell tool, a workflow's steps, a discovered tool): a rule's command prefix is
 * matched whichever tool it names, and a rule denying the shell tool denies every command.
 */
export function deniedCommand(policy: Pick<Policy, "deny">, command: string): string | null {
  for (const rule of policy.deny) {
    if (
      rule.commandPrefix ? deniedBy(rule.commandPrefix, command) : rule.tool === SHELL_TOOL && rule.digest === undefined
    ) {
      return rule.commandPrefix
        ? `The project's policy does not allow \`${rule.commandPrefix}\` commands.`
        : "The project's policy does not allow shell commands.";
    }
  }
  return null;
}

/**
 * The rules an "approve always" answer adds to the session: for a call that runs a definition (a
 * workflow), that definition by its digest; for commands, each command's prefix; else the tool.
 */
export function rulesForAlways(toolName: string, input: unknown, plan?: CallPlan | null): PolicyRule[] {
  if (plan?.digest) return [{ tool: toolName, digest: plan.digest }];
  const single = commandOf(input);
  const commands = plan ? plan.commands : single === null ? null : [single];
  if (commands === null) return [{ tool: toolName }];
  // The split parts' prefixes, and those of what the parser finds they run (`sudo ls` → `ls`), which the allow check also asks for.
  const prefixes = commands.flatMap((command) => {
    const parts = splitCommand(command);
    if (parts === null) return [];
    const parsed = parseCommandLine(command);
    return [...parts, ...(parsed.ok ? parsed.commands.map((c) => c.argv.join(" ")) : [])].map(commandPrefixOf);
  });
  return [...new Set(prefixes)].map((commandPrefix) => ({ tool: toolName, commandPrefix }));
}

/** `npm test -- --watch` → `npm test`; `ls -la` → `ls`; `./build.sh x` → `./build.sh`. */
export function commandPrefixOf(part: string): string {
  const words = part.trim().split(/\s+/);
  const second = words[1];
  if (second && /^[a-z][\w:-]*$/i.test(second) && !second.startsWith("-")) return `${words[0]} ${second}`;
  return words[0]!;
}
