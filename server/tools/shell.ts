import { z } from "zod";
import { SHELL_DEFAULT_TIMEOUT_S, SHELL_MAX_TIMEOUT_S, shellCall } from "@/lib/tool-call-shapes";
import { defineTool, type ToolResult } from "./define-tool";
import { INTERNAL_HOSTS_HINT } from "@/server/sandbox/admit-host";
import type { EgressRefusal } from "@/server/sandbox/egress-proxy";
import { limitNote } from "@/server/sandbox/limits";
import { ToolFailure, failure, ok } from "./result";

const DESCRIPTION = `Runs a bash command in the project's sandbox (the terminal's).
- One shell per session: the working directory and exported variables carry over.
- Returns the exit code, stdout and stderr; long output is cut (the end kept) and saved whole to a file you can read or grep.
- timeout in seconds (default ${SHELL_DEFAULT_TIMEOUT_S}, at most ${SHELL_MAX_TIMEOUT_S}) kills the command and what it started.
- run_in_background: for servers and watchers; returns a job id at once (shell_output reads it, shell_kill stops it).`;

export const shellTool = defineTool({
  ...shellCall,
  description: DESCRIPTION,
  output: { keep: "tail" },
  async execute(input, ctx): Promise<ToolResult> {
    if (input.run_in_background) {
      const job = await ctx.shell.start(input.command);
      return ok(
        `Started background job ${job.id}. Read its output with shell_output {"id":"${job.id}"}; stop it with shell_kill. Its full output goes to '${job.outputPath}'.`,
        {
          kind: "terminal",
          command: input.command,
          output: "",
          exitCode: null,
          outputPath: job.outputPath,
          background: job.id,
        },
        { jobId: job.id },
      );
    }
    const timeoutS = input.timeout ?? SHELL_DEFAULT_TIMEOUT_S;
    const result = await ctx.shell.run(input.command, {
      timeoutMs: timeoutS * 1000,
      signal: ctx.signal,
      onOutput: (stream, text) => ctx.emit({ type: "output", stream, text }),
      ...(ctx.toolCallId ? { logName: ctx.toolCallId } : {}),
    });
    const sections = [`Exit code: ${result.exitCode ?? `none (killed by ${result.signal ?? "a signal"})`}`];
    if (result.stdout) sections.push(`stdout:\n${result.stdout.replace(/\n$/, "")}`);
    if (result.stderr) sections.push(`stderr:\n${result.stderr.replace(/\n$/, "")}`);
    if (!result.stdout && !result.stderr) sections.push("(no output)");
    // Past the disk budget every file's size limit is 0: the budget, not the per-file limit, is why.
    const limit = result.diskFull ?? limitNote(`${result.stdout}\n${result.stderr}`, result.signal, ctx.sandbox.limits);
    if (limit) sections.push(`Sandbox limit: ${limit}`);
    if (result.deniedHosts.length) sections.push(deniedNote(result.deniedHosts, ctx.sandbox.network.policy));
    if (result.internalRefusals.length) sections.push(internalNote(result.internalRefusals));
    const text = sections.join("\n");
    const display = {
      kind: "terminal" as const,
      command: input.command,
      output: [result.stdout, result.stderr].filter(Boolean).join(""),
      exitCode: result.exitCode,
      outputPath: result.outputPath,
    };
    const meta = {
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      outputPath: result.outputPath,
      deniedHosts: result.deniedHosts,
    };
    if (result.timedOut) {
      const f = failure(
        "TIMEOUT",
        `The command did not finish within ${timeoutS} s and was killed with everything it started. Output so far:\n${text}\nRaise timeout (at most ${SHELL_MAX_TIMEOUT_S}), or use run_in_background for long-running commands.`,
        meta,
      );
      return { ...f, display, fullOutputPath: result.outputPath };
    }
    if (result.aborted) {
      const f = failure("ABORTED", `The command was stopped by the user. Output so far:\n${text}`, meta);
      return { ...f, display, fullOutputPath: result.outputPath };
    }
    return { ...ok(text, display, meta), fullOutputPath: result.outputPath };
  },
});

function deniedNote(hosts: string[], policy: string): string {
  const list = hosts.join(", ");
  return (
    `Network: the sandbox's egress proxy refused ${list} (this project's network policy is ${policy}). ` +
    `A project admin can allow ${hosts.length > 1 ? "these hosts" : "this host"} in the project settings (Network), or with the "Allow ${hosts[0]} for this project?" card in this session; then run the command again.`
  );
}

function internalNote(refusals: EgressRefusal[]): string {
  const what = refusals.map((r) => (r.host === r.address ? r.host : `${r.host} (${r.address})`)).join(", ");
  return (
    `Network: the sandbox's egress proxy refused ${what}: ${refusals[0]!.reason}. ` +
    `This is an internal address, refused whatever the project's network policy says, so allowing the host in the project does not help. ${INTERNAL_HOSTS_HINT}. Tell the person which host you need and why.`
  );
}

export const shellOutputTool = defineTool({
  name: "shell_output",
  kind: "read",
  description:
    "Returns what a background job (started with shell run_in_background) printed since the last call, and whether it is still running.",
  input: z.object({ id: z.string().min(1).describe('The job id, e.g. "bg1".') }),
  output: { keep: "tail" },
  describe: (input) => `Read output of ${input.id}`,
  async execute(input, ctx) {
    const found = ctx.shell.readNew(input.id);
    if (!found)
      throw new ToolFailure(
        "NOT_FOUND",
        unknownJob(
          input.id,
          ctx.shell.jobs().map((j) => j.id),
        ),
      );
    const { job, output } = found;
    const status = job.running ? "running" : `exited with ${job.exitCode ?? `signal ${job.signal}`}`;
    const text = `Job ${job.id} (${status}).\n${output === "" ? "(no new output)" : output}`;
    return {
      ...ok(
        text,
        {
          kind: "terminal",
          command: job.command,
          output,
          exitCode: job.exitCode,
          outputPath: job.outputPath,
          background: job.id,
        },
        { running: job.running },
      ),
      fullOutputPath: job.outputPath,
    };
  },
});

export const shellKillTool = defineTool({
  name: "shell_kill",
  onDemand: "always",
  kind: "execute",
  description: "Stops a background job started with shell run_in_background, with everything it started.",
  input: z.object({ id: z.string().min(1).describe('The job id, e.g. "bg1".') }),
  describe: (input) => `Stop ${input.id}`,
  async execute(input, ctx) {
    const jobs = ctx.shell.jobs();
    const job = jobs.find((j) => j.id === input.id);
    if (!job)
      throw new ToolFailure(
        "NOT_FOUND",
        unknownJob(
          input.id,
          jobs.map((j) => j.id),
        ),
      );
    if (!job.running) return ok(`Job ${input.id} had already exited (${job.exitCode ?? job.signal}).`);
    await ctx.shell.kill(input.id);
    return ok(`Stopped job ${input.id}.`);
  },
});

function unknownJob(id: string, known: string[]): string {
  return `There is no background job '${id}' in this session.${known.length ? ` Jobs: ${known.join(", ")}.` : ""}`;
}
