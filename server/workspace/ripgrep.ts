import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { canSwitchIdentity, sharedIdentity } from "@/server/sandbox/identity";
import { closeQuietly, openRoot } from "./beneath";

/** Flags every search shares: .gitignore honoured even outside git, nothing from above the root or the user's config. */
export const RG_BASE_ARGS = [
  "--no-config",
  "--no-require-git",
  "--no-ignore-parent",
  "--no-ignore-global",
  "--hidden",
  "--glob",
  "!.git",
  "--color",
  "never",
];

export interface RgRun {
  lines: string[];
  /** True when we stopped reading after `maxLines` (rg was killed). */
  stopped: boolean;
  exitCode: number | null;
  stderr: string;
}

/**
 * The launcher that confines rg with Landlock to reading the workspace's tree (and its own binary)
 * before it runs it (native/rg-confined.c). rg walks the tree by path strings, as every reader that
 * is not beneath.ts does, so a folder a terminal swaps for a link while it walks leads it out: as
 * root it read root-only host files, as the project's uid any world-readable one (an install's
 * 0644 .env). Landlock judges each open by where the inode sits, not by the path, so no link leads
 * it out. When Landlock cannot be set up the launcher runs nothing: the search fails, closed.
 * (Measured: about 1 ms a search over rg alone; rg in a bubblewrap sandbox cost about 10 ms.)
 */
const RG_CONFINED = path.resolve(import.meta.dirname, "../sandbox/native/build/Release/rg-confined");

/**
 * How rg is confined to the tree: by Landlock (rg-confined), or where the kernel has no Landlock,
 * in a bubblewrap sandbox whose file system holds only the tree (read-only) and rg: a link in the
 * tree then leads to nothing. Without either, rg-confined runs nothing and every search fails closed.
 */
export type RipgrepConfinement = { kind: "landlock" } | { kind: "bubblewrap"; bwrap: string };

let confinement: RipgrepConfinement = { kind: "landlock" };

/** Sets how rg is confined (chooseRipgrepConfinement does at start-up; tests pick one). */
export function useRipgrepConfinement(chosen: RipgrepConfinement): void {
  confinement = chosen;
}

const ENV = { PATH: "/usr/bin:/bin" } as Record<string, string> as NodeJS.ProcessEnv;

/**
 * Starts rg for a search of the workspace `root` (in `cwd`, the root by default), confined to the
 * tree. It also runs as the project's uid and gid once the workspace belongs to its project's
 * group (identity.ts; every sandbox launch does that first, so until then no project process
 * exists to race), so a project's files are read with the project's rights.
 * No environment but PATH, no stdin (rg would search it).
 */
export function spawnRipgrep(
  args: string[],
  options: { root: string; cwd?: string; stdio: SpawnOptions["stdio"] },
): ChildProcess {
  const identity = canSwitchIdentity() ? sharedIdentity(options.root) : null;
  const asProject = identity ? { uid: identity.uid, gid: identity.gid } : {};
  if (confinement.kind === "bubblewrap") return spawnInBubblewrap(confinement.bwrap, args, options, asProject);
  return spawn(RG_CONFINED, [options.root, rgPath, ...args], {
    cwd: options.cwd ?? options.root,
    env: ENV,
    stdio: options.stdio,
    ...asProject,
  });
}

/**
 * rg in a sandbox of its own: every namespace unshared, and in its file system only the tree,
 * read-only at its own path, and rg's binary (static: nothing else to show it). The tree is
 * opened here without following a link (beneath.ts's openRoot, O_PATH) and handed to bwrap as that
 * open folder (--ro-bind-fd), so
 * what is mounted is the folder checked, not whatever the path names when bwrap gets to it; a
 * root that is not a folder runs nothing, with rg-confined's exit code (125).
 */
function spawnInBubblewrap(
  bwrap: string,
  args: string[],
  options: { root: string; cwd?: string; stdio: SpawnOptions["stdio"] },
  asProject: { uid?: number; gid?: number },
): ChildProcess {
  let tree: number;
  try {
    tree = openRoot(options.root, { follow: false });
  } catch (error) {
    const why = `rg: cannot confine the search to '${options.root}': ${(error as Error).message}`;
    return spawn("/bin/sh", ["-c", 'printf "%s\\n" "$1" >&2; exit 125', "sh", why], { env: ENV, stdio: options.stdio });
  }
  const stdio = Array.isArray(options.stdio)
    ? [...options.stdio.slice(0, 3), tree]
    : [options.stdio, options.stdio, options.stdio, tree];
  try {
    return spawn(
      bwrap,
      [
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--ro-bind-fd",
        "3",
        options.root,
        "--ro-bind",
        rgPath,
        rgPath,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--chdir",
        options.cwd ?? options.root,
        rgPath,
        ...args,
      ],
      // Started in /: the cwd inside is --chdir's, resolved in the sandbox's own file system.
      { cwd: "/", env: ENV, stdio: stdio as SpawnOptions["stdio"], ...asProject },
    );
  } finally {
    closeQuietly(tree); // the child has its own copy
  }
}

/**
 * Picks how rg is confined on this host (useRipgrepConfinement): Landlock when the kernel has it,
 * else bubblewrap (where `bubblewrap` finds one that runs) when rg runs in it; returns the line the
 * server logs at start-up.
 */
export async function chooseRipgrepConfinement(bubblewrap: () => Promise<string | null>): Promise<string> {
  useRipgrepConfinement({ kind: "landlock" });
  const unconfined = await ripgrepConfinement();
  if (!unconfined) return "search: ripgrep confined by Landlock";
  const bwrap = await bubblewrap();
  if (bwrap) {
    useRipgrepConfinement({ kind: "bubblewrap", bwrap });
    const probe = await runRipgrep(["--version"], { root: path.dirname(rgPath), signal: AbortSignal.timeout(10_000) });
    if (probe.exitCode === 0) return `search: ripgrep confined by bubblewrap (no Landlock: ${unconfined})`;
    useRipgrepConfinement({ kind: "landlock" });
  }
  return `search: OFF, ripgrep cannot be confined: ${unconfined}`;
}

/**
 * Whether this host can confine rg (Landlock: Linux 5.13 or later, with Landlock among the
 * kernel's security modules): null when it can, else why not. Without it every search fails
 * closed, so the server says so once at start-up rather than leaving an admin to read rg-confined's
 * error from a failed search.
 */
export function ripgrepConfinement(): Promise<string | null> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(RG_CONFINED, [path.dirname(rgPath), rgPath, "--version"], {
      env: { PATH: "/usr/bin:/bin" } as Record<string, string> as NodeJS.ProcessEnv,
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on("error", (error) => resolve(error.message));
    child.on("close", (code) =>
      resolve(
        code === 0
          ? null
          : `${stderr.trim() || `exit ${code}`} (search needs Landlock: Linux 5.13 or later, enabled in the kernel's security modules)`,
      ),
    );
  });
}

export interface RgOptions {
  /** The workspace searched: rg is confined to it (spawnRipgrep). */
  root: string;
  /** Where rg starts; the root by default. */
  cwd?: string;
  signal: AbortSignal;
  /** Stop (and kill rg) after this many lines of output. */
  maxLines?: number;
  onLine?(line: string): void;
}

/** Runs the bundled ripgrep and collects its output lines; aborting the signal kills it. */
export function runRipgrep(args: string[], options: RgOptions): Promise<RgRun> {
  return new Promise((resolve, reject) => {
    const child = spawnRipgrep(args, { root: options.root, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    let partial = "";
    let stderr = "";
    let stopped = false;
    const max = options.maxLines ?? Number.POSITIVE_INFINITY;
    const stop = () => {
      if (!child.killed) child.kill("SIGKILL");
    };
    const onAbort = () => stop();
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      if (stopped) return;
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      for (const line of parts) {
        if (lines.length >= max) {
          stopped = true;
          stop();
          return;
        }
        lines.push(line);
        options.onLine?.(line);
      }
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", onAbort);
      if (!stopped && partial !== "" && lines.length < max) lines.push(partial);
      if (options.signal.aborted) {
        reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
        return;
      }
      resolve({ lines, stopped, exitCode: code, stderr });
    });
  });
}

export interface RgStream {
  /**
   * Output lines as rg prints them (UTF-8 bytes, no newline), each valid until the next is taken;
   * ending the iteration early kills rg.
   */
  lines: AsyncIterable<Buffer>;
  /** Settles when rg has exited (killed included). */
  exited: Promise<{ exitCode: number | null; stderr: string }>;
  kill(): void;
}

/**
 * Runs the bundled ripgrep and hands its output over line by line as it comes, without keeping
 * it, pulled as fast as the reader takes them (the file list of a download). Outputs of a hundred
 * megabytes (find in files) go through scanRipgrep instead. Aborting the signal kills rg.
 */
export function streamRipgrep(args: string[], options: { root: string; signal: AbortSignal }): RgStream {
  const child = spawnRipgrep(args, { root: options.root, stdio: ["ignore", "pipe", "pipe"] });
  const kill = () => {
    if (child.exitCode === null && !child.killed) child.kill("SIGKILL");
  };
  options.signal.addEventListener("abort", kill, { once: true });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  const exited = new Promise<{ exitCode: number | null; stderr: string }>((resolve) => {
    child.on("error", (error) => {
      stderr += error.message;
      resolve({ exitCode: null, stderr });
    });
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", kill);
      resolve({ exitCode: code, stderr });
    });
  });
  // Split by hand on newline bytes: readline joins strings chunk by chunk, which costs dearly on
  // long lines. A line that spans chunks is joined into one buffer kept for the whole run.
  let joined = Buffer.alloc(0);
  const join = (parts: Buffer[]) => {
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    if (joined.length < length) joined = Buffer.allocUnsafe(Math.max(length, joined.length * 2));
    let at = 0;
    for (const part of parts) at += part.copy(joined, at);
    return joined.subarray(0, length);
  };
  async function* lines() {
    let pending: Buffer[] = [];
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        let start = 0;
        for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
          const piece = chunk.subarray(start, end);
          yield pending.length ? join([...pending, piece]) : piece;
          pending = [];
          start = end + 1;
        }
        if (start < chunk.length) pending.push(chunk.subarray(start));
      }
      if (pending.length) yield join(pending);
    } finally {
      kill();
    }
  }
  return { lines: lines(), exited, kill };
}
