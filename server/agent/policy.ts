import { z } from "zod";
import type { ToolKind } from "@/lib/tool-display";
import type { CallPlan } from "@/server/tools/define-tool";
import type { CommandGuardConfig } from "@/lib/command-guard-config";
import { parseCommandLine, programName } from "@/server/agent/shell-commands";

// The approval policy: which tool calls run at once, which wait for a person, which never run.
//
// Modes: `ask` (reads run freely; edits, writes, shell and fetch ask), `auto-edit` (edits and
// writes run; shell and fetch ask), `yolo` (nothing asks). Rules name a tool, and for shell
// commands optionally a command prefix. Deny wins over allow, and over the mode, even in yolo.
// Commands are read with the destructive-command guard's shell parser (./shell-commands), which
// splits `a && b | c; d` and looks through `sudo`, `env X=1`, `xargs`, `sh -c '...'` and `$(...)`:
// a deny rule matches any command that runs, as written or once unwrapped; an allow rule must
// vouch for every one of them, wrappers included, and a command line with a substitution or a
// subshell is never allowed by a rule. A call that runs several commands (a workflow) is judged
// on every one of them; a rule with a `digest` allows only the definition it was given for (an
// edited workflow asks again).

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
 * `prefix` matches `words` on whole words: `git` matches `git status`, not `gitk`. `byName` compares
 * the program by its name (a deny rule on `rm` holds for `/bin/rm`); an allow rule on `ls` does
 * not vouch for `./ls`.
 */
function startsWithWords(words: readonly string[], prefix: string, byName = false): boolean {
  const want = prefix.trim().split(/\s+/);
  const program = (word: string) => (byName ? programName(word) : word);
  return want.every((w, i) => (i === 0 ? program(words[0] ?? "") === program(w) : words[i] === w));
}

function ruleMatches(rule: PolicyRule, toolName: string, words: readonly string[] | null, digest?: string): boolean {
  if (rule.tool !== toolName && rule.tool !== "*") return false;
  if (rule.digest !== undefined && rule.digest !== digest) return false;
  if (!rule.commandPrefix) return true;
  return words !== null && startsWithWords(words, rule.commandPrefix);
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
        (commands.length > 0 && commands.every((command) => allowedCommand(policy, tool.name, command, digest)));
  if (allowedByRules) return { action: "run" };
  if (toolInsists) return { action: "ask", reason: `${tool.name} asks for approval for this input.` };
  if (ASKS[policy.mode].has(tool.kind)) {
    return { action: "ask", reason: `In "${policy.mode}" mode, ${tool.kind} tools need approval.` };
  }
  return { action: "run" };
}

/** Whether a deny rule's command prefix forbids this command; one the parser cannot see through is checked as text. */
function deniedBy(prefix: string, command: string): boolean {
  const parsed = parseCommandLine(command);
  if (parsed.ok && parsed.commands.some((c) => c.layers.some((words) => startsWithWords(words, prefix, true))))
    return true;
  return (!parsed.ok || parsed.nested) && command.includes(prefix);
}

/** Every command that runs, and every wrapper it runs under (`sudo`, `env`), is allowed by some rule. */
function allowedCommand(policy: Policy, toolName: string, command: string, digest?: string): boolean {
  const parsed = parseCommandLine(command);
  if (!parsed.ok || parsed.nested || parsed.commands.length === 0) return false;
  return parsed.commands.every((c) =>
    c.layers.every((words) => policy.allow.some((rule) => ruleMatches(rule, toolName, words, digest))),
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
  // Every layer of every command (`sudo ls` → `sudo ls` and `ls`), as the allow check asks for them.
  const prefixes = commands.flatMap((command) => {
    const parsed = parseCommandLine(command);
    if (!parsed.ok || parsed.nested) return [];
    return parsed.commands.flatMap((c) => c.layers.map((words) => commandPrefixOf(words.join(" "))));
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
