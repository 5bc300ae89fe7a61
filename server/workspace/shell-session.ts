import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { atomicWriteBeneath } from "./atomic-write";
import { openForWrite, readTail } from "./beneath";
import { mkdirBeneath } from "./beneath-entries";
import path from "node:path";
import type { EgressRefusal } from "@/server/sandbox/egress-proxy";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Workspace } from "./workspace";
import { workspacePathInside } from "@/lib/workspace-mount";
import type { Redactor } from "@/server/secrets/redactor";

/** One command's outcome; `stdout`/`stderr` keep at most the last `MAX_KEPT_CHARS` of each. */
export interface ShellRunResult {
  exitCode: number | null;
  /** The signal that ended the command (after a timeout or abort: the whole process group is killed). */
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Everything the command printed, interleaved as a terminal would show it (agent-readable path). */
  outputPath: string;
  durationMs: number;
  /** Hosts the egress proxy refused while the command ran, by the project's network policy. */
  deniedHosts: string[];
  /** Connections refused because the host is internal (its address set), whatever the policy. */
  internalRefusals: EgressRefusal[];
  /** Set when the project's disk budget is reached (commands cannot grow files): says so. */
  diskFull: string | null;
}

export interface ShellRunOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Called with each complete line (and the last partial one at exit) as it arrives. */
  onOutput?(stream: "stdout" | "stderr", text: string): void;
  /** Names the output log (the tool call's id), so what a run cut off by a crash printed can be found again. */
  logName?: string;
}

export interface BackgroundJob {
  id: string;
  command: string;
  startedAt: number;
  running: boolean;
  exitCode: number | null;
  signal: string | null;
  outputPath: string;
}

/**
 * The agent session's shell: every command runs sandboxed in its own process group, while the
 * working directory and exported variables carry over from one command to the next.
 */
export interface ShellSession {
  run(command: string, options: ShellRunOptions): Promise<ShellRunResult>;
  /** Starts a background job; it keeps running after the call returns. */
  start(command: string): Promise<BackgroundJob>;
  /** Output printed since the last call for this job (undefined for an unknown id). */
  readNew(id: string): { job: BackgroundJob; output: string } | undefined;
  /** Stops a job and its process group; false when there is no running job with that id. */
  kill(id: string): Promise<boolean>;
  jobs(): BackgroundJob[];
  /** Kills every job; call when the agent session ends. */
  dispose(): Promise<void>;
  /** The end of what a run named `logName` printed (its log survives a crash), or null when there is none. */
  capturedOutput(logName: string): Promise<{ path: string; text: string } | null>;
}

export interface ShellSessionOptions {
  workspace: Pick<Workspace, "root">;
  /** Names the session's folder under `.tandem/shell/` (state and output logs). */
  sessionId: string;
  sandbox: Sandbox;
  /** The project whose network policy applies; without it the shell has no network. */
  projectId?: string;
  /** Extra environment; only allow-listed, non-secret names pass (see sandboxEnv). */
  env?: Record<string, string>;
  /** The project's secrets for this shell's commands (the launcher's `secrets`); never saved in its state file. */
  secrets?: Record<string, string>;
  /** Hides those values in everything the commands print: the output the tool returns, streams and logs. */
  redactor?: Redactor;
}

/** Each of stdout and stderr keeps at most this much (the end); the log file has everything. */
export const MAX_KEPT_CHARS = 1_000_000;
const KILL_GRACE_MS = 1_000;

// Restores the exported variables and working directory of the previous command, runs this one,
// and (for foreground commands) saves them again on exit, whatever way the command ends. The
// project's toolchains as they are now (TANDEM_TOOLCHAINS, from the launcher) stay first on a PATH
// an earlier command exported before they were set.
const WRAPPER = `
__tandem_state="$1"; __tandem_root="$2"; __tandem_save="$3"; __tandem_hide="$5"; __tandem_toolchains="\${TANDEM_TOOLCHAINS-}"
if [ -f "$__tandem_state" ]; then . "$__tandem_state"; fi
if [ -n "$__tandem_toolchains" ]; then case ":$PATH:" in *":$__tandem_toolchains:"*) ;; *) PATH="$__tandem_toolchains:$PATH" ;; esac; fi
export TANDEM_TOOLCHAINS="$__tandem_toolchains"; unset __tandem_toolchains
case "$__tandem_cwd" in "$__tandem_root"|"$__tandem_root"/*) cd -- "$__tandem_cwd" 2>/dev/null || cd -- "$__tandem_root" ;; *) cd -- "$__tandem_root" ;; esac
unset __tandem_cwd
if [ "$__tandem_save" = 1 ]; then
  trap '__tandem_ec=$?; for __tandem_n in $__tandem_hide; do unset "$__tandem_n"; done; { export -p; printf "__tandem_cwd=%q\\n" "$PWD"; } > "$__tandem_state.tmp" 2>/dev/null && mv -f "$__tandem_state.tmp" "$__tandem_state"; exit $__tandem_ec' EXIT
fi
unset __tandem_root __tandem_save
eval "$4"
`;

interface Stream {
  kept: string;
  dropped: number;
  partial: string;
}

interface Running {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null }>;
  stdout: Stream;
  stderr: Stream;
  log: WriteStream;
  outputPath: string;
  kill(): void;
  refusals(): EgressRefusal[];
  diskFull(): Promise<string | null>;
}

function keep(stream: Stream, text: string): void {
  stream.kept += text;
  if (stream.kept.length > MAX_KEPT_CHARS) {
    stream.dropped += stream.kept.length - MAX_KEPT_CHARS;
    stream.kept = stream.kept.slice(-MAX_KEPT_CHARS);
  }
}

function dropNote(stream: Stream): string {
  return stream.dropped > 0 ? `[${stream.dropped} earlier characters not kept in memory; see the output file]\n` : "";
}

class SandboxedShellSession implements ShellSession {
  private readonly dir: string;
  private readonly relativeDir: string;
  private readonly statePath: string;
  private readonly background = new Map<
    string,
    { job: BackgroundJob; running: Running; readUpTo: number; combined: Stream }
  >();
  private counter = 0;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: ShellSessionOptions) {
    const safe = options.sessionId.replace(/[^A-Za-z0-9_-]/g, "_");
    this.relativeDir = `.tandem/shell/${safe}`;
    this.dir = path.join(options.workspace.root, this.relativeDir);
    this.statePath = path.join(this.dir, "state.sh");
  }

  async run(command: string, options: ShellRunOptions): Promise<ShellRunResult> {
    const started = Date.now();
    const running = await this.spawn(command, true, options.onOutput, options.logName);
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      running.kill();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      running.kill();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    const { code, signal } = await running.done.finally(() => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
    });
    const refusals = running.refusals();
    return {
      exitCode: code,
      signal,
      stdout: dropNote(running.stdout) + running.stdout.kept,
      stderr: dropNote(running.stderr) + running.stderr.kept,
      timedOut,
      aborted,
      outputPath: running.outputPath,
      durationMs: Date.now() - started,
      // An internal address is refused whatever the policy: allowing the host in the project does not help.
      deniedHosts: refusals.filter((r) => !r.address).map((r) => r.host),
      internalRefusals: refusals.filter((r) => r.address),
      diskFull: await running.diskFull(),
    };
  }

  async start(command: string): Promise<BackgroundJob> {
    const id = `bg${++this.counter}`;
    const combined: Stream = { kept: "", dropped: 0, partial: "" };
    const running = await this.spawn(command, false, (_stream, text) => keep(combined, text));
    const job: BackgroundJob = {
      id,
      command,
      startedAt: Date.now(),
      running: true,
      exitCode: null,
      signal: null,
      outputPath: running.outputPath,
    };
    void running.done.then(({ code, signal }) => {
      job.running = false;
      job.exitCode = code;
      job.signal = signal;
    });
    this.background.set(id, { job, running, readUpTo: 0, combined });
    return { ...job };
  }

  readNew(id: string): { job: BackgroundJob; output: string } | undefined {
    const entry = this.background.get(id);
    if (!entry) return undefined;
    const { combined } = entry;
    const total = combined.dropped + combined.kept.length;
    const from = Math.max(entry.readUpTo, combined.dropped);
    const skipped = from - entry.readUpTo;
    const output =
      (skipped > 0 ? `[${skipped} characters not kept in memory; see ${entry.job.outputPath}]\n` : "") +
      combined.kept.slice(from - combined.dropped);
    entry.readUpTo = total;
    return { job: { ...entry.job }, output };
  }

  async kill(id: string): Promise<boolean> {
    const entry = this.background.get(id);
    if (!entry?.job.running) return false;
    entry.running.kill();
    await entry.running.done;
    return true;
  }

  jobs(): BackgroundJob[] {
    return [...this.background.values()].map((entry) => ({ ...entry.job }));
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.background.keys()].map((id) => this.kill(id)));
  }

  private prepare(): Promise<void> {
    this.ready ??= (async () => {
      // Beneath the root: .tandem is in the workspace, and a member may have made it a link.
      await mkdirBeneath(this.options.workspace.root, this.relativeDir);
      await atomicWriteBeneath(this.options.workspace.root, ".tandem/.gitignore", Buffer.from("*\n"), {
        exclusive: true,
      }).catch(() => undefined);
    })();
    this.ready.catch(() => (this.ready = undefined));
    return this.ready;
  }

  async capturedOutput(logName: string): Promise<{ path: string; text: string } | null> {
    const name = logFileName(logName);
    // The tail's bytes: up to 4 per character, so the last CAPTURED_TAIL_CHARS characters are in it.
    const tail = await readTail(
      this.options.workspace.root,
      `${this.relativeDir}/${name}`,
      CAPTURED_TAIL_CHARS * 4,
    ).catch(() => null);
    if (tail === null) return null;
    const text = tail.bytes.toString("utf8");
    const cut = tail.cut || text.length > CAPTURED_TAIL_CHARS;
    return { path: `${this.relativeDir}/${name}`, text: cut ? `[…]${text.slice(-CAPTURED_TAIL_CHARS)}` : text };
  }

  private async spawn(
    command: string,
    save: boolean,
    onOutput?: (stream: "stdout" | "stderr", text: string) => void,
    logName?: string,
  ): Promise<Running> {
    await this.prepare();
    const name = logName ? logFileName(logName) : `${Date.now().toString(36)}-${++this.counter}.log`;
    const log = createWriteStream("", {
      fd: await openForWrite(this.options.workspace.root, `${this.relativeDir}/${name}`, `'${name}'`),
    });
    const root = this.options.workspace.root;
    // The working directory is kept as the shell sees it (`/workspace/src` when sandboxed).
    const inside = workspacePathInside(this.options.sandbox.mode === "bwrap", root);
    const launch = await this.options.sandbox
      .launch({
        workspaceRoot: root,
        command: [
          "/bin/bash",
          "-c",
          WRAPPER,
          "tandem-shell",
          this.statePath,
          inside,
          save ? "1" : "0",
          command,
          // Secrets come from the environment each time; the state file in the workspace never holds them.
          Object.keys(this.options.secrets ?? {}).join(" "),
        ],
        env: this.options.env,
        secrets: this.options.secrets,
        newSession: true,
        projectId: this.options.projectId,
        source: { kind: "session", id: this.options.sessionId },
      })
      .catch(async (error: unknown) => {
        log.end();
        throw error;
      });
    const sandboxed = launch.command;
    const child = spawn(sandboxed.file, sandboxed.args, {
      cwd: sandboxed.cwd,
      env: sandboxed.env as Record<string, string> as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      uid: sandboxed.uid,
      gid: sandboxed.gid,
    });
    const streams = { stdout: { kept: "", dropped: 0, partial: "" }, stderr: { kept: "", dropped: 0, partial: "" } };
    const redactor = this.options.redactor?.empty === false ? this.options.redactor : null;
    for (const which of ["stdout", "stderr"] as const) {
      const pipe = child[which]!;
      pipe.setEncoding("utf8");
      const received = (text: string) => {
        if (!text) return;
        const stream = streams[which];
        keep(stream, text);
        log.write(text);
        if (!onOutput) return;
        const lines = (stream.partial + text).split("\n");
        stream.partial = lines.pop()!;
        for (const line of lines) onOutput(which, `${line}\n`);
      };
      // A secret's value is replaced before anything keeps, logs or streams the output.
      const redaction = redactor?.stream();
      pipe.on("data", (text: string) => received(redaction ? redaction.push(text) : text));
      if (redaction) pipe.once("end", () => received(redaction.end()));
    }
    let exited = false;
    let openPipes = 2;
    let onPipesClosed: (() => void) | undefined;
    for (const which of ["stdout", "stderr"] as const) {
      child[which]!.once("close", () => {
        if (--openPipes === 0) onPipesClosed?.();
      });
    }
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const done = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.on("error", (error) => {
        log.write(`\n[could not start the shell: ${error.message}]\n`);
        void launch.close();
        resolve({ code: null, signal: null });
      });
      child.on("exit", (code, signal) => {
        exited = true;
        // Whatever the command left running in its group goes with it (use run_in_background to keep it).
        killGroup("SIGKILL");
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          for (const which of ["stdout", "stderr"] as const) {
            const stream = streams[which];
            if (stream.partial && onOutput) onOutput(which, stream.partial);
            stream.partial = "";
          }
          void launch.close();
          log.end(() => resolve({ code, signal }));
        };
        // Let the pipes drain; a grandchild holding them open must not hold the call.
        if (openPipes === 0) finish();
        else {
          const timer = setTimeout(finish, 200);
          onPipesClosed = () => {
            clearTimeout(timer);
            finish();
          };
        }
      });
    });
    const kill = () => {
      if (exited) return;
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
    };
    return {
      child,
      done,
      ...streams,
      log,
      outputPath: `${this.relativeDir}/${name}`,
      kill,
      refusals: launch.refusals,
      diskFull: launch.diskFull,
    };
  }
}

/** The shell of one agent session; the runtime keeps one per session and disposes it at the end. */
export function createShellSession(options: ShellSessionOptions): ShellSession {
  return new SandboxedShellSession(options);
}

/** How much of an interrupted run's output the model is shown (the whole log stays on disk). */
const CAPTURED_TAIL_CHARS = 4_000;

const logFileName = (logName: string) => `call-${logName.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100)}.log`;
