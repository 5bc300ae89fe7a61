import path from "node:path";
import type { CommandGuardConfig } from "@/lib/command-guard-config";
import { parseCommandLine, programName, type SimpleCommand } from "@/server/agent/shell-commands";

// The destructive-command guard: shell commands that always ask a person, whatever the approval
// mode and allow rules, with the reason on the approval card. Commands are read with a shell
// parser (./shell-commands), so quoting, `&&`, pipes, `sudo`, `sh -c '...'` and `$(...)` do not
// hide what runs. Only deny rules are stronger (a denied command never runs).

/** What the guard may ask about the workspace's git state (only for `git reset --hard`). */
export type GitWorkProbe = () => Promise<{ uncommitted: number; unpushed: number } | null>;

const RECURSIVE_FLAG = /^-[a-zA-Z]*[rR][a-zA-Z]*$/;

/** The reasons this command must ask; empty when the guard has nothing to say. */
export async function guardReasons(
  command: string,
  config: CommandGuardConfig,
  probeGit: GitWorkProbe,
): Promise<string[]> {
  const parsed = parseCommandLine(command);
  if (!parsed.ok)
    return [`The command could not be parsed (${parsed.error}), so the destructive-command guard cannot vouch for it.`];
  const reasons = new Set<string>();
  const add = (reason: string | null) => reason && reasons.add(reason);
  for (const cmd of parsed.commands) {
    add(gitPush(cmd));
    if (config.gitRewrite.enabled) add(await gitResetHard(cmd, probeGit));
    if (config.recursiveDelete.enabled) add(recursiveDelete(cmd, config.recursiveDelete.scratchPaths));
    if (config.recursivePermissions.enabled) add(recursivePermissions(cmd, config.recursivePermissions.commands));
    if (config.diskTools.enabled && matchesName(cmd.argv[0]!, config.diskTools.commands)) {
      add(`\`${cmd.argv[0]}\` writes to disks and file systems directly.`);
    }
    if (config.dropDatabase.enabled) add(dropDatabase(cmd, parsed.commands, config.dropDatabase));
    for (const rule of config.alwaysAsk) if (startsWithWords(cmd.argv, rule.prefix)) add(rule.reason);
  }
  if (config.downloadToShell.enabled) add(downloadToShell(parsed.commands, config.downloadToShell));
  return [...reasons];
}

function matchesName(program: string, names: readonly string[]): boolean {
  return names.some((name) => program === name || program.startsWith(`${name}.`));
}

function startsWithWords(argv: readonly string[], prefix: string): boolean {
  const want = prefix.trim().split(/\s+/);
  return want.every((w, i) =>
    i === 0 ? programName(argv[0] ?? "") === w : argv[i]?.toLowerCase() === w.toLowerCase(),
  );
}

/** Git's subcommand after its global options (`git -C dir push` → push). */
function gitArgs(cmd: SimpleCommand): string[] | null {
  if (cmd.argv[0] !== "git") return null;
  const args = cmd.argv.slice(1);
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-"))
    i += ["-C", "-c", "--git-dir", "--work-tree", "--namespace"].includes(args[i]!) ? 2 : 1;
  return args.slice(i);
}

function gitPush(cmd: SimpleCommand): string | null {
  const args = gitArgs(cmd);
  if (args?.[0] !== "push") return null;
  const force = args.some(
    (a) =>
      a.startsWith("--force") ||
      ["--mirror", "--delete", "--prune"].includes(a) ||
      (/^-[a-zA-Z]+$/.test(a) && /[fd]/.test(a)) ||
      (a.length > 1 && (a.startsWith("+") || a.startsWith(":"))),
  );
  return force
    ? "`git push` with force or delete rewrites the remote's history; a person always approves it."
    : "`git push` publishes commits to a remote; a person always approves it.";
}

async function gitResetHard(cmd: SimpleCommand, probeGit: GitWorkProbe): Promise<string | null> {
  const args = gitArgs(cmd);
  if (args?.[0] !== "reset" || !args.includes("--hard")) return null;
  const work = await probeGit().catch(() => null);
  if (work === null) return "`git reset --hard` discards work, and the branch's state could not be checked.";
  if (work.uncommitted === 0 && work.unpushed === 0) return null;
  const parts = [
    work.uncommitted > 0 ? `${work.uncommitted} uncommitted change${work.uncommitted === 1 ? "" : "s"}` : null,
    work.unpushed > 0 ? `${work.unpushed} unpushed commit${work.unpushed === 1 ? "" : "s"}` : null,
  ].filter(Boolean);
  return `\`git reset --hard\` would discard work on this branch: ${parts.join(" and ")}.`;
}

/** Where a path argument points; null when only the running shell knows (`$VAR`, `~`, globs above the root). */
function resolveTarget(arg: string, dynamic: boolean): string | null {
  if (dynamic) return null;
  const clean = arg.replace(/^["']|["']$/g, "");
  if (clean.startsWith("/")) return path.posix.normalize(clean);
  return path.posix.join("/workspace", clean);
}

function isScratch(target: string, scratchPaths: readonly string[]): boolean {
  return scratchPaths.some((scratch) => {
    const root = scratch.startsWith("/") ? path.posix.normalize(scratch) : path.posix.join("/workspace", scratch);
    return target === root || target.startsWith(`${root}/`);
  });
}

function operands(cmd: SimpleCommand): Array<{ arg: string; dynamic: boolean }> {
  const out: Array<{ arg: string; dynamic: boolean }> = [];
  let options = true;
  cmd.argv.slice(1).forEach((arg, i) => {
    if (options && arg === "--") return void (options = false);
    if (options && arg.startsWith("-") && arg !== "-") return;
    out.push({ arg, dynamic: cmd.dynamic[i + 1] ?? false });
  });
  return out;
}

function recursiveDelete(cmd: SimpleCommand, scratchPaths: readonly string[]): string | null {
  const program = cmd.argv[0]!;
  let targets: Array<{ arg: string; dynamic: boolean }>;
  if (program === "rm" || program === "rmdir") {
    if (program === "rm" && !cmd.argv.some((a) => RECURSIVE_FLAG.test(a) || a === "--recursive")) return null;
    targets = operands(cmd);
  } else if (program === "find" && cmd.argv.some((a) => a === "-delete" || a === "rm")) {
    targets = operands(cmd).slice(0, 1);
  } else return null;
  if (targets.length === 0 && program === "rm") targets = [{ arg: "(from its input)", dynamic: true }];
  const outside = targets.filter((t) => {
    const target = resolveTarget(t.arg, t.dynamic);
    return target === null || !isScratch(target, scratchPaths);
  });
  if (outside.length === 0) return null;
  return `Recursive delete outside the workspace's scratch space (${outside.map((t) => t.arg).join(", ")}).`;
}

function recursivePermissions(cmd: SimpleCommand, programs: readonly string[]): string | null {
  if (!matchesName(cmd.argv[0]!, programs)) return null;
  if (!cmd.argv.some((a) => RECURSIVE_FLAG.test(a) || a === "--recursive")) return null;
  // The first operand is the mode or owner; the rest are the files.
  const files = operands(cmd).slice(1);
  const wide = files.filter((f) => {
    const target = resolveTarget(f.arg, f.dynamic);
    return (
      target === null ||
      target === "/workspace" ||
      !target.startsWith("/workspace/") ||
      f.arg === "*" ||
      f.arg === "./*"
    );
  });
  if (wide.length === 0) return null;
  return `\`${cmd.argv[0]} -R\` on the workspace root or beyond (${wide.map((f) => f.arg).join(", ")}) changes every file under it.`;
}

const DROP_STATEMENT = /\bdrop\s+(database|schema)\b/i;

function dropDatabase(
  cmd: SimpleCommand,
  all: SimpleCommand[],
  config: CommandGuardConfig["dropDatabase"],
): string | null {
  if (config.commands.some((p) => startsWithWords(cmd.argv, p)))
    return `\`${cmd.argv.slice(0, 3).join(" ")}\` drops or wipes a database.`;
  if (!cmd.argv.some((a) => DROP_STATEMENT.test(a))) return null;
  // The statement reaches a database when a client gets it as an argument or through the pipe.
  const reaches = all.filter(
    (c) => c === cmd || (cmd.pipeline && c.pipeline?.id === cmd.pipeline.id && c.pipeline.index > cmd.pipeline.index),
  );
  if (!reaches.some((c) => matchesName(c.argv[0]!, config.clients))) return null;
  return "The command drops a database (DROP DATABASE/SCHEMA).";
}

function downloadToShell(commands: SimpleCommand[], config: CommandGuardConfig["downloadToShell"]): string | null {
  const isDownloader = (c: SimpleCommand) => matchesName(c.argv[0]!, config.downloaders);
  const isInterpreter = (c: SimpleCommand) => matchesName(c.argv[0]!, config.interpreters);
  for (const c of commands) {
    if (!isInterpreter(c)) continue;
    if (c.substituted.some((p) => matchesName(p, config.downloaders)))
      return `A download is run by \`${c.argv[0]}\` without being looked at first.`;
    if (!c.pipeline || c.pipeline.index === 0) continue;
    const upstream = commands.filter((d) => d.pipeline?.id === c.pipeline!.id && d.pipeline.index < c.pipeline!.index);
    if (upstream.some(isDownloader)) return `A download is piped into \`${c.argv[0]}\` without being looked at first.`;
  }
  return null;
}
