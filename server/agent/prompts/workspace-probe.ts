import type { Sandbox } from "@/server/sandbox/sandbox";
import { runSandboxed } from "@/server/tools/discovery/discovered-tools";

// What the agent's commands find in the sandbox: the language runtimes and build tools on its
// PATH, with their versions. Asked once per session, inside the sandbox (with no network), so the
// prompt states what a shell call will really find instead of what the server's host has.

const TOOLS = [
  "node",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "python3",
  "pip3",
  "uv",
  "go",
  "cargo",
  "java",
  "ruby",
  "make",
  "gcc",
];

// `go` and `java` name their versions their own way; every other tool answers --version. Only the
// version number is kept.
const SCRIPT = `for c in ${TOOLS.join(" ")}; do
  command -v "$c" >/dev/null 2>&1 || continue
  case "$c" in go) v=$(go version 2>&1) ;; java) v=$(java -version 2>&1) ;; *) v=$("$c" --version 2>&1) ;; esac
  printf '%s %s\\n' "$c" "$(printf '%s' "$v" | grep -oE '[0-9]+(\\.[0-9]+)+' | head -n 1)"
done`;

const TIMEOUT_MS = 8_000;

/** "node 24.1.0"-style lines, one per tool found; null when the probe could not run. */
export async function probeRuntimes(input: {
  root: string;
  sandbox: Sandbox;
  signal?: AbortSignal;
}): Promise<string[] | null> {
  try {
    const result = await runSandboxed({
      workspaceRoot: input.root,
      sandbox: input.sandbox,
      script: SCRIPT,
      timeoutMs: TIMEOUT_MS,
      signal: input.signal,
    });
    if (result.error || result.exitCode !== 0) return null;
    return result.stdout.split("\n").filter((line) => line.trim());
  } catch {
    return null;
  }
}
