import { spawn } from "node:child_process";
import { z } from "zod";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { defineTool, type Tool } from "../define-tool";
import { failure, ok, ToolFailure } from "../result";
import type { ProcessSecrets } from "@/server/secrets/redactor";

// Project tool discovery (the gemini-cli shape): `toolDiscoveryCommand` prints a JSON array of
// function declarations ({name, description, parameters}, or objects holding them under
// `functionDeclarations`); each becomes a tool. Calling one runs `toolCallCommand <name>` in the
// sandbox with the arguments as JSON on stdin: stdout is the result; a failure returns Stdout,
// Stderr, Error, Exit Code and Signal.

export type DiscoverySettings = { discoveryCommand: string; callCommand: string | null };

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const DISCOVERY_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 120_000;
const MAX_OUTPUT = 1_000_000;

const declaration = z.object({
  name: z.string().regex(NAME, "tool names use letters, digits, _ and - (at most 64, not starting with a digit)"),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()).optional(),
  parametersJsonSchema: z.record(z.string(), z.unknown()).optional(),
});

export class DiscoveryError extends Error {}

export type CommandResult = {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  timedOut: boolean;
};

/** Runs `command` with bash in the sandbox, the workspace as working directory. */
export async function runSandboxed(input: {
  workspaceRoot: string;
  sandbox: Sandbox;
  projectId?: string;
  /** `none`: no network whatever the project's policy (the project's toolchains all the same). */
  network?: "none";
  script: string;
  args?: string[];
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  secrets?: ProcessSecrets;
}): Promise<CommandResult> {
  const launch = await input.sandbox.launch({
    workspaceRoot: input.workspaceRoot,
    command: ["/bin/bash", "-c", input.script, "tandem-tool", ...(input.args ?? [])],
    newSession: true,
    projectId: input.projectId,
    network: input.network,
    source: { kind: "discovery", id: input.script.slice(0, 80) },
    secrets: input.secrets?.env,
  });
  const redact = (text: string) => input.secrets?.redactor.redact(text) ?? text;
  const command = launch.command;
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let error: string | null = null;
    let timedOut = false;
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      uid: command.uid,
      gid: command.gid,
    });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => ((timedOut = true), kill()), input.timeoutMs);
    const onAbort = () => kill();
    input.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => (stdout = (stdout + c.toString("utf8")).slice(-MAX_OUTPUT)));
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-MAX_OUTPUT)));
    child.on("error", (e) => (error = e.message));
    child.stdin.on("error", () => {}); // a command that never reads its input
    child.stdin.end(input.stdin ?? "");
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      if (timedOut) error = `timed out after ${input.timeoutMs / 1000} s`;
      void launch.close();
      // Whole outputs, so a value split across reads is found: tool declarations and results reach the model.
      resolve({ stdout: redact(stdout), stderr: redact(stderr), exitCode, signal, error, timedOut });
    });
  });
}

/** Runs the discovery command and turns what it prints into tools; DiscoveryError says what went wrong. */
export async function discoverTools(input: {
  workspaceRoot: string;
  sandbox: Sandbox;
  projectId?: string;
  settings: DiscoverySettings;
  signal?: AbortSignal;
  secrets?: ProcessSecrets;
}): Promise<Tool[]> {
  const { settings } = input;
  const result = await runSandboxed({
    workspaceRoot: input.workspaceRoot,
    sandbox: input.sandbox,
    projectId: input.projectId,
    script: settings.discoveryCommand,
    timeoutMs: DISCOVERY_TIMEOUT_MS,
    signal: input.signal,
    secrets: input.secrets,
  });
  if (result.error || result.exitCode !== 0) {
    const why =
      result.error ?? (result.exitCode === 127 ? "command not found" : `exit code ${result.exitCode ?? result.signal}`);
    throw new DiscoveryError(
      `The discovery command failed (${why})${result.stderr.trim() ? `: ${result.stderr.trim().split("\n").slice(-3).join(" / ")}` : "."}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(result.stdout);
  } catch (error) {
    throw new DiscoveryError(
      `The discovery command must print a JSON array of function declarations; its output is not JSON (${(error as Error).message}).`,
    );
  }
  if (!Array.isArray(raw))
    throw new DiscoveryError("The discovery command must print a JSON array of function declarations.");
  const flat = raw.flatMap((item: unknown) => {
    const group =
      item && typeof item === "object"
        ? ((item as Record<string, unknown>).functionDeclarations ??
          (item as Record<string, unknown>).function_declarations)
        : undefined;
    return Array.isArray(group) ? group : [item];
  });
  const tools: Tool[] = [];
  const problems: string[] = [];
  for (const [index, item] of flat.entries()) {
    const parsed = declaration.safeParse(item);
    if (!parsed.success) {
      problems.push(
        `declaration ${index}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(item)"} ${i.message}`).join("; ")}`,
      );
      continue;
    }
    if (!settings.callCommand)
      throw new DiscoveryError("Tools were discovered but no toolCallCommand is set: set it so they can be called.");
    tools.push(
      discoveredTool(parsed.data, {
        ...input,
        callCommand: settings.callCommand,
        discoveryCommand: settings.discoveryCommand,
      }),
    );
  }
  if (problems.length && !tools.length) throw new DiscoveryError(`No usable declaration: ${problems.join(" | ")}`);
  return tools;
}

function discoveredTool(
  decl: z.infer<typeof declaration>,
  env: {
    workspaceRoot: string;
    sandbox: Sandbox;
    projectId?: string;
    callCommand: string;
    discoveryCommand: string;
    secrets?: ProcessSecrets;
  },
): Tool {
  const schema = decl.parametersJsonSchema ?? decl.parameters ?? { type: "object", properties: {} };
  const description =
    `${decl.description.trim()}\n\nThis tool was discovered from the project by running \`${env.discoveryCommand}\` at the project root. ` +
    `When called, it runs \`${env.callCommand} ${decl.name}\` at the project root (sandboxed), with the arguments as a JSON object on stdin. ` +
    "On success it returns the command's stdout; on failure it returns Stdout, Stderr, Error, Exit Code and Signal.";
  return defineTool({
    name: decl.name,
    kind: "execute",
    description: description.trim(),
    input: z.record(z.string(), z.unknown()),
    inputSchema: normalizeSchema(schema),
    deferrable: true,
    describe: () => `Run discovered tool ${decl.name}`,
    // What runs is the call command with the tool's name; the arguments go on stdin, not to a shell.
    plan: async () => ({ commands: [`${env.callCommand} ${decl.name}`] }),
    async execute(args, ctx) {
      const result = await runSandboxed({
        workspaceRoot: env.workspaceRoot,
        sandbox: env.sandbox,
        projectId: env.projectId,
        script: `${env.callCommand} "$1"`,
        args: [decl.name],
        stdin: JSON.stringify(args),
        timeoutMs: CALL_TIMEOUT_MS,
        signal: ctx.signal,
        secrets: env.secrets,
      });
      if (ctx.signal.aborted) throw new ToolFailure("ABORTED", "The call was cancelled before it finished.");
      if (!result.error && result.exitCode === 0 && !result.signal) return ok(result.stdout);
      const text = [
        `Stdout: ${result.stdout.trimEnd() || "(empty)"}`,
        `Stderr: ${result.stderr.trimEnd() || "(empty)"}`,
        `Error: ${result.error ?? "(none)"}`,
        `Exit Code: ${result.exitCode ?? "(none)"}`,
        `Signal: ${result.signal ?? "(none)"}`,
      ].join("\n");
      return { ...failure(result.timedOut ? "TIMEOUT" : "INTERNAL", text), llm: text };
    },
  });
}

/** Gemini-style declarations use upper-case OpenAPI types (STRING, OBJECT); JSON Schema wants lower case. */
function normalizeSchema(node: unknown): Record<string, unknown> {
  if (Array.isArray(node)) return node.map(normalizeSchema) as unknown as Record<string, unknown>;
  if (!node || typeof node !== "object") return node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "type" && typeof value === "string"
        ? value.toLowerCase()
        : typeof value === "object"
          ? normalizeSchema(value)
          : value;
  }
  return out;
}
