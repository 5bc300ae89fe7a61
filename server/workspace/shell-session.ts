import { atomicWriteBeneath } from "./atomic-write";
import { readTail } from "./beneath-files";
import { mkdirBeneath } from "./beneath-entries";
import path from "node:path";
import type { EgressRefusal } from "@/server/sandbox/egress-proxy";
import {
  dropNote,
  keep,
  spawnShellCommand,
  type Running,
  type ShellSessionOptions,
  type Stream,
} from "./shell-process";

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
    const fileName = logName ? logFileName(logName) : `${Date.now().toString(36)}-${++this.counter}.log`;
    return spawnShellCommand(
      this.options,
      { relativeDir: this.relativeDir, statePath: this.statePath, fileName },
      command,
      save,
      onOutput,
    );
  }
}

/** The shell of one agent session; the runtime keeps one per session and disposes it at the end. */
export function createShellSession(options: ShellSessionOptions): ShellSession {
  return new SandboxedShellSession(options);
}

/** How much of an interrupted run's output the model is shown (the whole log stays on disk). */
const CAPTURED_TAIL_CHARS = 4_000;

const logFileName = (logName: string) => `call-${logName.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100)}.log`;
