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
}

export interface ShellRunOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Called with each complete line (and the last partial one at exit) as it arrives. */
  onOutput?(stream: "stdout" | "stderr", text: string): void;
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
}
