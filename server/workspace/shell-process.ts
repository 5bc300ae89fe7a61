import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { openForWrite } from "./beneath-files";
import type { EgressRefusal } from "@/server/sandbox/egress-proxy";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Workspace } from "./workspace";
import { workspacePathInside } from "@/lib/workspace-mount";
import type { Redactor } from "@/server/secrets/redactor";

// One command of an agent session's shell (shell-session.ts) as a process: launched in the
// sandbox in a process group of its own, through a wrapper that carries the working directory and
// exported variables over, its output kept (the end of it), logged and streamed.

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

export interface Stream {
  kept: string;
  dropped: number;
  partial: string;
}

export interface Running {
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

export function keep(stream: Stream, text: string): void {
  stream.kept += text;
  if (stream.kept.length > MAX_KEPT_CHARS) {
    stream.dropped += stream.kept.length - MAX_KEPT_CHARS;
    stream.kept = stream.kept.slice(-MAX_KEPT_CHARS);
  }
}

export function dropNote(stream: Stream): string {
  return stream.dropped > 0 ? `[${stream.dropped} earlier characters not kept in memory; see the output file]\n` : "";
}

/** Where a command's state and output go, beneath the workspace root. */
export interface ShellLog {
  /** The session's folder under `.tandem/shell/`, root-relative. */
  relativeDir: string;
  /** The wrapper's state file (exported variables and working directory), as the server sees it. */
  statePath: string;
  /** The output log's name in `relativeDir`. */
  fileName: string;
}

/** Starts `command`; `save` keeps its exported variables and working directory for the next one. */
export async function spawnShellCommand(
  options: ShellSessionOptions,
  log: ShellLog,
  command: string,
  save: boolean,
  onOutput?: (stream: "stdout" | "stderr", text: string) => void,
): Promise<Running> {
  const output = createWriteStream("", {
    fd: await openForWrite(options.workspace.root, `${log.relativeDir}/${log.fileName}`, `'${log.fileName}'`),
  });
  const root = options.workspace.root;
  // The working directory is kept as the shell sees it (`/workspace/src` when sandboxed).
  const inside = workspacePathInside(options.sandbox.mode === "bwrap", root);
  const launch = await options.sandbox
    .launch({
      workspaceRoot: root,
      command: [
        "/bin/bash",
        "-c",
        WRAPPER,
        "tandem-shell",
        log.statePath,
        inside,
        save ? "1" : "0",
        command,
        // Secrets come from the environment each time; the state file in the workspace never holds them.
        Object.keys(options.secrets ?? {}).join(" "),
      ],
      env: options.env,
      secrets: options.secrets,
      newSession: true,
      projectId: options.projectId,
      source: { kind: "session", id: options.sessionId },
    })
    .catch(async (error: unknown) => {
      output.end();
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
  const redactor = options.redactor?.empty === false ? options.redactor : null;
  for (const which of ["stdout", "stderr"] as const) {
    const pipe = child[which]!;
    pipe.setEncoding("utf8");
    const received = (text: string) => {
      if (!text) return;
      const stream = streams[which];
      keep(stream, text);
      output.write(text);
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
      output.write(`\n[could not start the shell: ${error.message}]\n`);
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
        output.end(() => resolve({ code, signal }));
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
    log: output,
    outputPath: `${log.relativeDir}/${log.fileName}`,
    kill,
    refusals: launch.refusals,
    diskFull: launch.diskFull,
  };
}
