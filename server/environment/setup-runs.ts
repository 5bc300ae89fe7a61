import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { constants } from "node:os";
import type { SetupRunState } from "@/lib/toolchains";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { ProcessSecrets } from "@/server/secrets/redactor";

// A project's setup script, run in its sandbox: after a clone and when someone rebuilds the
// environment. It runs like any other process of the project (its uid, its network policy, its
// toolchains first on the PATH) and with nobody's credentials: no git identity or credential, no
// person's secret, whoever pressed the button, because the repository's `.tandem/setup.sh` is
// code anyone with write access (or the agent) may have written. One run at a time per project;
// its output streams to whoever watches, and the last run's result and the end of its output are
// kept (the store).

export type SetupScript = { source: "settings" | "repository"; command: string[] };

export type SetupRunsDeps = {
  sandbox: Sandbox;
  /** The script to run: the settings' one, else the repository's, else null. */
  script(projectId: string): Promise<SetupScript | null>;
  /** The project's main tree. */
  root(projectId: string): Promise<string>;
  /** The project's and its team's secrets (server/services/secrets.ts); never a person's. */
  secrets?(projectId: string): Promise<ProcessSecrets>;
  /** Makes the project's toolchains ready before the script runs; lines to print first. */
  prepare(projectId: string): Promise<string[]>;
  save(projectId: string, run: SetupRunState): Promise<void>;
  load(projectId: string): Promise<SetupRunState | null>;
  timeoutMs?: number;
  log?(line: string): void;
};

export type SetupEvent = { kind: "output"; text: string } | { kind: "ended"; run: SetupRunState };

export class SetupBusyError extends Error {
  constructor() {
    super("The environment is being set up already: wait for that run to end, then retry.");
  }
}

export class NoSetupScriptError extends Error {
  constructor() {
    super("This project has no setup script: set one in the project settings or add .tandem/setup.sh.");
  }
}

/** What the page and the database keep of a run's output. */
export const KEPT_OUTPUT_CHARS = 16_000;
const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export type SetupRuns = ReturnType<typeof createSetupRuns>;

export function createSetupRuns(deps: SetupRunsDeps) {
  const running = new Map<string, { run: SetupRunState; done: Promise<SetupRunState | null> }>();
  const events = new EventEmitter().setMaxListeners(0);
  const timeout = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  function append(projectId: string, run: SetupRunState, text: string): void {
    run.output = (run.output + text).slice(-KEPT_OUTPUT_CHARS);
    events.emit(projectId, { kind: "output", text } satisfies SetupEvent);
  }

  async function execute(projectId: string, run: SetupRunState, script: SetupScript): Promise<number | null> {
    for (const line of await deps.prepare(projectId)) append(projectId, run, `${line}\n`);
    // The project's and its team's secrets belong in this launch, a person's never: the run is
    // started for the project, not for whoever pressed the button.
    const secrets = await deps.secrets?.(projectId);
    const launch = await deps.sandbox.launch({
      workspaceRoot: await deps.root(projectId),
      command: script.command,
      newSession: true,
      projectId,
      source: { kind: "setup", id: projectId },
      secrets: secrets?.env,
    });
    const command = launch.command;
    return new Promise<number | null>((resolve) => {
      const child = spawn(command.file, command.args, {
        cwd: command.cwd,
        env: command.env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        uid: command.uid,
        gid: command.gid,
      });
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        append(
          projectId,
          run,
          `\n[the setup script ran past ${Math.round(timeout / 60_000)} minutes and was stopped]\n`,
        );
        killGroup();
      }, timeout);
      for (const stream of [child.stdout, child.stderr]) {
        stream.setEncoding("utf8");
        // The output is streamed to watchers and kept: a secret's value shows as [secret NAME].
        const redaction = secrets && !secrets.redactor.empty ? secrets.redactor.stream() : null;
        stream.on("data", (text: string) => {
          const shown = redaction ? redaction.push(text) : text;
          if (shown) append(projectId, run, shown);
        });
        if (redaction) stream.once("end", () => append(projectId, run, redaction.end()));
      }
      child.on("error", (error) => {
        append(projectId, run, `[could not start the setup script: ${error.message}]\n`);
      });
      // Whatever the script left running in its group goes with it, so its output pipes close.
      child.on("exit", killGroup);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        void launch.close();
        resolve(code ?? (signal ? 128 + constants.signals[signal] : null));
      });
    });
  }

  return {
    /**
     * Starts the project's setup; resolves with the run once it has started (its end comes as an
     * event and in `status`). Throws SetupBusyError while one runs, NoSetupScriptError without a script.
     */
    async start(projectId: string, trigger: SetupRunState["trigger"]): Promise<SetupRunState> {
      if (running.has(projectId)) throw new SetupBusyError();
      let settle!: (run: SetupRunState | null) => void;
      const claim = {
        run: {
          status: "running",
          exitCode: null,
          source: "settings",
          trigger,
          startedAt: new Date(),
          endedAt: null,
          output: "",
        } as SetupRunState,
        done: new Promise<SetupRunState | null>((resolve) => (settle = resolve)),
      };
      // Claimed before anything is awaited, so two requests at once cannot both start.
      running.set(projectId, claim);
      let script: SetupScript | null;
      try {
        script = await deps.script(projectId);
        if (!script) throw new NoSetupScriptError();
        claim.run.source = script.source;
        await deps.save(projectId, claim.run);
      } catch (error) {
        running.delete(projectId);
        settle(null);
        throw error;
      }
      const run = claim.run;
      void (async () => {
        const started = Date.now();
        let code: number | null = null;
        try {
          code = await execute(projectId, run, script);
        } catch (error) {
          append(projectId, run, `[the setup could not run: ${(error as Error).message}]\n`);
        }
        run.status = code === 0 ? "succeeded" : "failed";
        run.exitCode = code;
        run.endedAt = new Date();
        deps.log?.(`setup of project ${projectId} ${run.status} (exit ${code}) in ${Date.now() - started} ms`);
        await deps
          .save(projectId, run)
          .catch((error: unknown) => deps.log?.(`could not record the setup run: ${(error as Error).message}`));
        running.delete(projectId);
        events.emit(projectId, { kind: "ended", run: { ...run } } satisfies SetupEvent);
        settle(run);
      })();
      return { ...run };
    },

    /** The run in progress here, else the last one recorded (one recorded as running that no process runs was cut off). */
    async status(projectId: string): Promise<SetupRunState | null> {
      const live = running.get(projectId);
      if (live) return { ...live.run };
      const last = await deps.load(projectId);
      if (last?.status !== "running") return last;
      return { ...last, status: "failed", output: `${last.output}\n[the server stopped while this ran]\n` };
    },

    /** Resolves when the project's run in progress ends (at once when none runs). */
    async settled(projectId: string): Promise<SetupRunState | null> {
      return running.get(projectId)?.done ?? null;
    },

    /** Calls `listener` with each piece of output and the end of the project's runs until the returned function is called. */
    watch(projectId: string, listener: (event: SetupEvent) => void): () => void {
      events.on(projectId, listener);
      return () => events.off(projectId, listener);
    },
  };
}
