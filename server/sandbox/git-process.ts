import { spawn } from "node:child_process";

// The one place a git process is started: the project's repository (server/git/run.ts) and the
// checkpoint store (server/workspace/checkpoint-git.ts) each build the command (sandboxed or not,
// its identity, its scrubbed environment) and map a failure to their own error; how the process
// is spawned, fed and read is the same for both.

/** What to start: a sandboxed command (launcher.ts) or git itself; uid/gid the identity it runs as. */
export interface GitCommand {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  uid?: number;
  gid?: number;
}

export interface GitProcessOptions {
  input?: string | Buffer;
  /** Exit codes that are answers rather than failures (e.g. 1 from `diff --quiet`). */
  okCodes?: readonly number[];
  /** Kills git; the run then fails as cancelled. */
  signal?: AbortSignal;
  /** Each chunk of stderr as it arrives (progress lines end in \r). */
  onStderr?: (text: string) => void;
  /** Past this many bytes of stdout git is killed and the run fails as `overflow`. */
  maxStdout?: number;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Why a git process failed: it could not start (`missing`: no such program), was cancelled, or exited with a code not in okCodes. */
export class GitProcessError extends Error {
  constructor(
    readonly kind: "missing" | "unstartable" | "cancelled" | "exit" | "overflow",
    message: string,
    readonly result?: GitResult,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

// stderr is read for messages only; a git that floods it must not grow the server's memory.
const MAX_STDERR = 1_000_000;

export function runGitProcess(command: GitCommand, options: GitProcessOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, [...command.args], {
      cwd: command.cwd,
      env: command.env as NodeJS.ProcessEnv,
      uid: command.uid,
      gid: command.gid,
      signal: options.signal,
      stdio: "pipe",
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let overflowed = false;
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (overflowed) return;
      outBytes += chunk.length;
      if (options.maxStdout !== undefined && outBytes > options.maxStdout) {
        overflowed = true;
        out.length = 0;
        child.kill("SIGKILL");
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (err.length < MAX_STDERR) err += text;
      options.onStderr?.(text);
    });
    child.stdin.on("error", () => undefined); // git may exit before reading all input; the exit code tells
    child.stdin.end(options.input ?? "");
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.name === "AbortError") reject(new GitProcessError("cancelled", "The git operation was cancelled."));
      else
        reject(
          new GitProcessError(error.code === "ENOENT" ? "missing" : "unstartable", error.message, undefined, {
            cause: error,
          }),
        );
    });
    child.on("close", (code) => {
      const result = { stdout: Buffer.concat(out), stderr: err, code: code ?? -1 };
      if (options.signal?.aborted) reject(new GitProcessError("cancelled", "The git operation was cancelled."));
      else if (overflowed)
        reject(new GitProcessError("overflow", `git's output ran past ${options.maxStdout} bytes`, result));
      else if (result.code === 0 || options.okCodes?.includes(result.code)) resolve(result);
      else reject(new GitProcessError("exit", `git exited with ${result.code}`, result));
    });
  });
}
