import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { runSandboxed } from "@/server/tools/discovery/discovered-tools";

// Grading and the pre-flight check run bash in the sandbox without network, as the agent's own
// commands run: what the workspace holds is the agent's work and must not run on the host.

const TIMEOUT_MS = 120_000;

export async function runInSandbox(
  sandbox: Sandbox,
  root: string,
  script: string,
): Promise<{ passed: boolean; output: string }> {
  // The one way a bash command runs in the sandbox with a timeout: its whole process group is
  // killed then, so a grader that leaves children behind does not outlive it.
  const run = await runSandboxed({
    workspaceRoot: root,
    sandbox,
    network: "none",
    script: `export CI=1\n${script}`,
    timeoutMs: TIMEOUT_MS,
  });
  return {
    passed: run.exitCode === 0 && !run.error,
    output: `${run.stdout}${run.stderr}${run.error ? `\n${run.error}` : ""}`,
  };
}

/**
 * Before the first task: the sandbox runs a command at all, and which commands tasks may require
 * it has. A sandbox that cannot run bash would fail every task for a reason that is not the model's.
 */
export async function checkSandbox(sandbox: Sandbox, commands: string[]): Promise<{ available: string[] }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-eval-preflight-"));
  try {
    const probe = await runInSandbox(
      sandbox,
      dir,
      `echo sandbox-ok; for c in ${commands.join(" ")}; do command -v "$c" >/dev/null && echo "has $c"; done; true`,
    );
    if (!probe.output.includes("sandbox-ok"))
      throw new Error(`The sandbox cannot run bash, so no task could be graded: ${probe.output.trim().slice(0, 500)}`);
    return { available: [...probe.output.matchAll(/^has (\S+)$/gm)].map((m) => m[1]!) };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
