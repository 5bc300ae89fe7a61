import type { CallGrant, ToolContext } from "@/server/tools/define-tool";
import type { ShellSession } from "@/server/workspace/shell-session";
import { ToolFailure } from "@/server/tools/result";
import { guardReasons } from "@/server/agent/command-guard";
import { gitWorkProbe } from "@/server/agent/git-work-probe";
import { deniedCommand, type Policy } from "@/server/agent/policy";

// Every command an agent's tool runs goes through its session's shell, and the shell a tool gets
// is this gate: whatever started the command (the shell tool, a workflow's `run` step, a
// background job), the project's deny rules refuse it, and the destructive-command guard refuses
// it unless a person approved this call with this very command on the card. The approval policy
// asks before a call runs (tool-calls.ts); this holds when what runs is not what was asked about
// (a workflow edited after it was read, a step built from an earlier step's output).

/**
 * Why a command no person can be asked about (a project's discovery and call commands, run when a
 * turn is set up) must not run: the deny rules' reason or the guard's, else null.
 */
export async function refusedUnattended(policy: Policy, command: string): Promise<string | null> {
  const denied = deniedCommand(policy, command);
  if (denied) return denied;
  if (!policy.guard) return null;
  const reasons = await guardReasons(command, policy.guard, async () => null);
  return reasons.length ? `${reasons.join(" ")} No one is asked about this command, so it does not run.` : null;
}

export function gatedShell(
  shell: ShellSession,
  policy: Policy,
  grant: CallGrant | undefined,
  ctx: Pick<ToolContext, "signal">,
): ShellSession {
  const vet = async (command: string) => {
    const denied = deniedCommand(policy, command);
    if (denied)
      throw new ToolFailure(
        "DENIED",
        `Refused \`${command}\`: ${denied} Do not retry it; find another way or ask the user.`,
      );
    if (!policy.guard) return;
    const approved = grant?.approvedById != null && (grant.plan?.commands.includes(command) ?? false);
    if (approved) return;
    const reasons = await guardReasons(command, policy.guard, gitWorkProbe({ shell, signal: ctx.signal }));
    if (reasons.length) {
      throw new ToolFailure(
        "DENIED",
        `Refused \`${command}\`: ${reasons.join(" ")} It needs a person's approval: run it on its own with the shell tool, which asks them.`,
      );
    }
  };
  return {
    run: async (command, options) => (await vet(command), shell.run(command, options)),
    start: async (command) => (await vet(command), shell.start(command)),
    readNew: (id) => shell.readNew(id),
    kill: (id) => shell.kill(id),
    jobs: () => shell.jobs(),
    dispose: () => shell.dispose(),
    capturedOutput: (logName) => shell.capturedOutput(logName),
  };
}
