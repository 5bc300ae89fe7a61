import { createRequire } from "node:module";
import type parseBash from "@ericcornelissen/bash-parser";
import type { BashNode, BashWord } from "@ericcornelissen/bash-parser";

// The simple commands a shell command line runs, found with a real shell parser
// (@ericcornelissen/bash-parser, the maintained fork of bash-parser: a POSIX/bash AST with
// pipelines, subshells, compound commands and command substitutions, in plain JS and synchronous;
// shell-quote only tokenizes and cannot see inside `$(...)`, and mvdan/sh's WASM build does not
// expose its AST to JavaScript). Wrappers that run another command (`sudo`, `env`, `xargs`,
// `timeout` ...) are looked through, and `sh -c '...'`/`eval` arguments are parsed again. The
// destructive-command guard and the approval rules (policy.ts) both read commands through it.

export type SimpleCommand = {
  /** Words after looking through wrappers; argv[0] is the program. */
  argv: string[];
  /** The words as written, then after each wrapper looked through (`sudo env X=1 rm x` → sudo…, env…, rm x); the last is argv's. */
  layers: string[][];
  /** True when a word's value is only known when the shell runs it (`$VAR`, `$(...)`, `~`). */
  dynamic: boolean[];
  /** The pipeline it is part of (commands joined by `|`), and its place there. */
  pipeline: { id: number; index: number } | null;
  /** Programs run by command substitutions in its words (`bash -c "$(curl ...)"` → ["curl"]). */
  substituted: string[];
};

export type ParsedCommandLine =
  | {
      ok: true;
      commands: SimpleCommand[];
      /** Part of it runs in a command substitution, a subshell or a function, or computes arithmetic. */
      nested: boolean;
    }
  | { ok: false; error: string };

const MAX_DEPTH = 4;
// What runs code the command line does not spell out as a plain command.
const NESTING = new Set(["CommandExpansion", "ArithmeticExpansion", "Subshell", "Function"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]);

/** Wrappers and how many leading words of their own they take before the wrapped command. */
const WRAPPERS: Record<string, (args: string[]) => number> = {
  sudo: (a) => skipOptions(a, new Set(["-u", "-g", "-h", "-p", "-C", "-U", "-r", "-t"])),
  doas: (a) => skipOptions(a, new Set(["-u", "-C"])),
  env: (a) => {
    let i = skipOptions(a, new Set(["-u", "-C", "-S"]));
    while (i < a.length && /^[A-Za-z_]\w*=/.test(a[i]!)) i++;
    return i;
  },
  nohup: () => 0,
  time: (a) => skipOptions(a, new Set(["-f", "-o"])),
  nice: (a) => skipOptions(a, new Set(["-n"])),
  ionice: (a) => skipOptions(a, new Set(["-c", "-n", "-p"])),
  stdbuf: (a) => skipOptions(a, new Set()),
  command: (a) => skipOptions(a, new Set()),
  exec: (a) => skipOptions(a, new Set(["-a"])),
  builtin: () => 0,
  timeout: (a) => {
    const i = skipOptions(a, new Set(["-s", "-k", "--signal", "--kill-after"]));
    return i + 1; // the duration
  },
  xargs: (a) => skipOptions(a, new Set(["-I", "-i", "-n", "-P", "-L", "-s", "-d", "-E", "-a"])),
  watch: (a) => skipOptions(a, new Set(["-n", "-d"])),
  npx: (a) => skipOptions(a, new Set(["-p", "--package", "-c"])),
  pnpx: (a) => skipOptions(a, new Set()),
  bunx: (a) => skipOptions(a, new Set(["-p", "--package"])),
};

function skipOptions(args: string[], withValue: ReadonlySet<string>): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    if (args[i] === "--") return i + 1;
    i += withValue.has(args[i]!) ? 2 : 1;
  }
  return i;
}

// The parser (with babylon under it, a few MB once compiled) is loaded with the first command
// checked, not with the server: an idle server never needs it. It is CommonJS, so require keeps
// the check synchronous.
let loadedParser: typeof parseBash | undefined;
const bashParser = () =>
  (loadedParser ??= createRequire(import.meta.url)("@ericcornelissen/bash-parser") as typeof parseBash);

export function parseCommandLine(source: string): ParsedCommandLine {
  const commands: SimpleCommand[] = [];
  let pipelines = 0;
  let nested = false;
  try {
    collect(source, 0);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, commands, nested };

  function collect(text: string, depth: number, pipeline: SimpleCommand["pipeline"] = null) {
    if (depth > MAX_DEPTH) throw new Error("commands nested too deeply to check");
    walk(bashParser()(text, { mode: "bash" }), depth, pipeline);
  }

  function walk(node: unknown, depth: number, pipeline: SimpleCommand["pipeline"]): void {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, depth, pipeline));
    if (!node || typeof node !== "object") return;
    const n = node as BashNode;
    if (n.type === "Pipeline") {
      const id = ++pipelines;
      (n.commands as unknown[]).forEach((c, index) => walk(c, depth, { id, index }));
      return;
    }
    if (n.type === "Command") return command(n, depth, pipeline);
    if (NESTING.has(n.type)) nested = true;
    if (n.type === "CommandExpansion" && n.commandAST) return walk(n.commandAST, depth + 1, null);
    for (const value of Object.values(n)) if (value && typeof value === "object") walk(value, depth, pipeline);
  }

  function command(n: BashNode, depth: number, pipeline: SimpleCommand["pipeline"]) {
    const words = [n.name, ...((n.suffix as unknown[]) ?? [])].filter(
      (w): w is BashWord => !!w && (w as BashWord).type === "Word",
    );
    // Substitutions anywhere in the command (prefix assignments, words, redirects) run too.
    const substituted: string[] = [];
    for (const part of [n.prefix, n.name, n.suffix]) {
      for (const item of ([] as unknown[]).concat(part ?? [])) {
        const w = (item as BashNode).type === "Redirect" ? ((item as BashNode).file as BashWord) : (item as BashWord);
        for (const e of w?.expansion ?? []) {
          if (NESTING.has(e.type)) nested = true;
          if (e.type !== "CommandExpansion" || !e.commandAST) continue;
          const before = commands.length;
          walk(e.commandAST, depth + 1, null);
          substituted.push(...commands.slice(before).map((c) => c.argv[0] ?? ""));
        }
      }
    }
    let argv = words.map((w) => w.text);
    let dynamic = words.map((w) => (w.expansion?.length ?? 0) > 0 || w.text.startsWith("~"));
    const layers = [argv];
    const push = () =>
      commands.push({ argv: [programName(argv[0]!), ...argv.slice(1)], layers, dynamic, pipeline, substituted });
    for (let guard = 0; guard < 8 && argv.length > 0; guard++) {
      const name = programName(argv[0]!);
      const wrapper = WRAPPERS[name];
      if (wrapper) {
        const skip = 1 + wrapper(argv.slice(1));
        if (skip >= argv.length) break; // the wrapper alone (`sudo -l`) is the command
        argv = argv.slice(skip);
        dynamic = dynamic.slice(skip);
        layers.push(argv);
        continue;
      }
      // The shell (or eval) is a command too: `bash -c "$(curl ...)"` runs what the download says.
      if (name === "eval" && argv.length > 1) {
        push();
        return collect(argv.slice(1).join(" "), depth + 1, pipeline);
      }
      const script = SHELLS.has(name) ? inlineScript(argv) : null;
      if (script !== null) {
        push();
        return collect(script, depth + 1, pipeline);
      }
      break;
    }
    if (argv.length > 0) push();
  }
}

/** `/usr/bin/rm` → `rm`; `"rm"` stays `rm`. */
export function programName(word: string): string {
  return (
    word
      .replace(/^["']|["']$/g, "")
      .split("/")
      .pop() ?? word
  );
}

/** The script of `bash -c 'script'` (also `-lc`, `-ec`); null when the shell reads a file or stdin. */
function inlineScript(argv: string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith("-")) return null;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) return argv[i + 1] ?? null;
  }
  return null;
}
