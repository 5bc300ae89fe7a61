import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

// How the deploy tests (npm run test:deploy) drive podman and podman-compose: as root, with the
// settings this kind of host needs (deploy/podman/containers.conf: runc, no default ulimits).

const run = promisify(execFile);
export const CONTAINERS_CONF = path.join(import.meta.dirname, "containers.conf");
const env = () => ({ ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? CONTAINERS_CONF });

/** Runs a podman command; its stdout, trimmed. Fails with what it printed. */
export async function podman(args: string[], options: { timeoutMs?: number } = {}): Promise<string> {
  return exec("podman", args, {}, options.timeoutMs);
}

/** Runs podman-compose on `file` as project `project`, with `extraEnv` for the file's ${VARIABLES}. */
export async function compose(
  file: string,
  project: string,
  args: string[],
  extraEnv: Record<string, string> = {},
  timeoutMs = 600_000,
): Promise<string> {
  return exec("podman-compose", ["-p", project, "-f", file, ...args], extraEnv, timeoutMs);
}

async function exec(command: string, args: string[], extraEnv: Record<string, string>, timeoutMs = 120_000) {
  try {
    const { stdout } = await run(command, args, {
      env: { ...env(), ...extraEnv },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** Everything a container printed (stdout and stderr). */
export async function logsOf(container: string): Promise<string> {
  try {
    const { stdout, stderr } = await run("podman", ["logs", container], { env: env(), maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    return String(error);
  }
}

/** The host port podman published for `containerPort` of `container`. */
export async function publishedPort(container: string, containerPort: number): Promise<number> {
  const line = await podman(["port", container, `${containerPort}/tcp`]);
  return Number(line.split("\n")[0]!.split(":").at(-1));
}
