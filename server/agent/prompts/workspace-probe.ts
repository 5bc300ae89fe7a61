import type { Sandbox } from "@/server/sandbox/sandbox";
import { runSandboxed } from "@/server/tools/discovery/discovered-tools";

// What the agent's commands find in the sandbox: the language runtimes with their versions and the
// package managers on its PATH. Asked inside the sandbox (with no network), so the prompt states
// what a shell call will really find instead of what the server's host has. Every project's
// sandbox binds the same system folders and, first on the PATH, its own toolchains, so one answer
// serves all sessions of a project with the same toolchains for a while: asking takes seconds on
// a loaded machine (each runtime starts to print its version).

const RUNTIMES = ["node", "python3", "go", "java", "rustc", "ruby", "php", "gcc"];
const PACKAGE_MANAGERS = ["npm", "pnpm", "yarn", "bun", "deno", "pip3", "uv", "cargo", "make"];

// Each runtime is asked at once, in parallel; `go` and `java` name their versions their own way.
// Only the version number is kept. Package managers are only looked for: starting npm or pip to
// print a version costs more than the version tells.
const SCRIPT = `for c in ${RUNTIMES.join(" ")}; do
  command -v "$c" >/dev/null 2>&1 || continue
  (case "$c" in go) v=$(go version 2>&1) ;; java) v=$(java -version 2>&1) ;; *) v=$("$c" --version 2>&1) ;; esac
   printf '%s %s\\n' "$c" "$(printf '%s' "$v" | grep -oE '[0-9]+(\\.[0-9]+)+' | head -n 1)") &
done
for c in ${PACKAGE_MANAGERS.join(" ")}; do command -v "$c" >/dev/null 2>&1 && printf '%s\\n' "$c"; done
wait
true`;

const TIMEOUT_MS = 10_000;
/** How long a turn waits for a probe still running; without the answer it says "unknown" and the next turn has it. */
const WAIT_MS = 2_000;
const FRESH_MS = 10 * 60_000;
const ORDER = [...RUNTIMES, ...PACKAGE_MANAGERS];

const answers = new WeakMap<Sandbox, Map<string, { at: number; runtimes: Promise<string[] | null> }>>();

/**
 * "node 24.1.0"-style lines for the runtimes found and the bare names of the package managers, in
 * a fixed order; null when the sandbox could not be asked, or has not answered within WAIT_MS (the
 * answer, when it comes, serves the next turn). `root`: a workspace to run in; `project`: whose
 * toolchains, and which versions they are (an answer is kept per project and versions).
 */
export function sandboxRuntimes(
  sandbox: Sandbox,
  root: string,
  project?: { id: string; toolchains: string },
): Promise<string[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, WAIT_MS, null)));
  return Promise.race([asked(sandbox, root, project), late]).finally(() => clearTimeout(timer));
}

function asked(sandbox: Sandbox, root: string, project?: { id: string; toolchains: string }): Promise<string[] | null> {
  const key = project ? `${project.id} ${project.toolchains}` : "";
  let kept = answers.get(sandbox);
  if (!kept) answers.set(sandbox, (kept = new Map()));
  const known = kept.get(key);
  if (known && Date.now() - known.at < FRESH_MS) return known.runtimes;
  const runtimes = probe(sandbox, root, project?.id);
  kept.set(key, { at: Date.now(), runtimes });
  // A failed probe is not kept: the next turn asks again.
  void runtimes.then((found) => {
    if (!found && kept.get(key)?.runtimes === runtimes) kept.delete(key);
  });
  return runtimes;
}

async function probe(sandbox: Sandbox, root: string, projectId?: string): Promise<string[] | null> {
  try {
    const result = await runSandboxed({
      workspaceRoot: root,
      sandbox,
      projectId,
      network: "none",
      script: SCRIPT,
      timeoutMs: TIMEOUT_MS,
    });
    if (result.error || result.exitCode !== 0) return null;
    const rank = (line: string) => ORDER.indexOf(line.split(" ")[0]!);
    return result.stdout
      .split("\n")
      .filter((line) => rank(line) >= 0)
      .sort((a, b) => rank(a) - rank(b));
  } catch {
    return null;
  }
}
