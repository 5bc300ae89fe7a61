import { execFile } from "node:child_process";
import { mapLimit } from "@/lib/map-limit";
import { readdir, readFile } from "node:fs/promises";
import { promisify } from "node:util";
import type { HostIdentity } from "./identity";

// Each project's workspace has a disk budget. The kernel has no per-folder budget to offer here:
// the workspaces share one file system without quotas, a size-limited mount (a loop image or a
// tmpfs per workspace) cannot be laid over a folder of a shared directory without moving the
// project into an image of its own, and cgroups (v1 or v2) do not count disk. So the server
// measures: while a project has sandboxed processes, its workspace is walked every few seconds.
// Past the budget, growth is stopped with the kernel's own tool, RLIMIT_FSIZE: every process of
// the project's host uid, and every command started after, gets a soft largest-file size of 0.
// A writer such as `yes > file` then dies of SIGXFSZ at its next write, while shells stay and
// `rm` still frees space; once the workspace is back under the budget the soft limit goes back
// up. Only the soft limit: the hard one could not be raised again (that needs CAP_SYS_RESOURCE,
// which a container's root often lacks; prlimit runs as the project's uid, which may lower and
// raise its own soft limits). A process that raises its soft limit back itself and keeps
// writing is found at the next check (the workspace grew while over budget) and killed with
// everything else of the project's uid. Tool writes are refused meanwhile (Sandbox.diskFull), and
// so is every write of the server's own (editor saves, uploads, restores): `room` measures a
// project on demand, and server/workspace/write-budget.ts refuses what would not fit.
// Without a uid of the project's own (a server not running as root) the running processes
// cannot be told apart from the server's, so only commands started past the budget are held.

const run = promisify(execFile);
const MiB = 1024 * 1024;
export const DISK_CHECK_MS = 2_000;
/** Growth between two checks past the budget that is not a file being created empty or a log line. */
const GROWTH_SLACK = 1 * MiB;

export type DiskBudgetOptions = {
  budgetMiB: number;
  /** The usual largest-file limit, restored when the workspace is back under the budget. */
  fileSizeMiB: number;
  intervalMs?: number;
  /** Bytes the workspace at `root` takes (server/workspace/disk-usage.ts, given by the composition root). */
  measure: (root: string) => Promise<number>;
  log?: (line: string) => void;
};

type Watched = {
  root: string;
  identity: HostIdentity | undefined;
  /** Open launches of the project; measuring stops when the last one closes. */
  holds: number;
  full: boolean;
  usedBytes: number;
  /** When usedBytes was measured (0: never). */
  measuredAt: number;
  /** What the server itself wrote into the workspace since (uploads, saves, restores). */
  addedBytes: number;
  timer: NodeJS.Timeout | undefined;
  /** The check under way: a second one waits for it rather than walking the tree twice. */
  checking: Promise<void> | undefined;
  listeners: Set<(message: string) => void>;
};

export type DiskBudget = ReturnType<typeof createDiskBudget>;

export function createDiskBudget(options: DiskBudgetOptions) {
  const projects = new Map<string, Watched>();
  const intervalMs = options.intervalMs ?? DISK_CHECK_MS;
  const { measure } = options;
  const message = () =>
    `This project's disk budget of ${options.budgetMiB} MB is reached: commands cannot grow files (the one writing was stopped) and the agent cannot write files until some are deleted.`;

  function check(projectId: string, watched: Watched): Promise<void> {
    if (watched.timer) clearTimeout(watched.timer);
    watched.timer = undefined;
    watched.checking ??= measureAndApply(projectId, watched).finally(() => {
      watched.checking = undefined;
      if (watched.holds > 0 && !watched.timer)
        watched.timer = setTimeout(() => void check(projectId, watched), intervalMs).unref();
    });
    return watched.checking;
  }

  async function measureAndApply(projectId: string, watched: Watched): Promise<void> {
    const previous = watched.usedBytes;
    const startedAt = Date.now();
    const used = await measure(watched.root).catch(() => watched.usedBytes + watched.addedBytes);
    watched.usedBytes = used;
    watched.measuredAt = startedAt;
    watched.addedBytes = 0;
    const over = used > options.budgetMiB * MiB;
    if (over) {
      const newlyFull = !watched.full;
      // Grew although every writer was held to 0 bytes: something raised its own limit back.
      if (!newlyFull && used > previous + GROWTH_SLACK) await killAll(watched.identity);
      // Full before the limit lands: a writer it stops ends its command, which asks at once.
      watched.full = true;
      // Re-applied on each check while over: a process forked just before the first one missed it.
      await setFileSizeLimit(watched.identity, 0);
      if (newlyFull) {
        // What writers wrote until the limit reached them is not growth past it.
        watched.usedBytes = await measure(watched.root).catch(() => used);
        options.log?.(
          `project ${projectId}: disk budget of ${options.budgetMiB} MB reached (${Math.round(used / MiB)} MB used); file growth stopped`,
        );
        for (const listener of watched.listeners) listener(message());
      }
    } else if (watched.full) {
      watched.full = false;
      await setFileSizeLimit(watched.identity, options.fileSizeMiB * MiB);
    }
  }

  function watchedOf(projectId: string, root: string, identity: HostIdentity | undefined): Watched {
    let watched = projects.get(projectId);
    if (!watched) {
      watched = {
        root,
        identity,
        holds: 0,
        full: false,
        usedBytes: 0,
        measuredAt: 0,
        addedBytes: 0,
        timer: undefined,
        checking: undefined,
        listeners: new Set(),
      };
      projects.set(projectId, watched);
    }
    watched.identity ??= identity;
    return watched;
  }

  return {
    budgetMiB: options.budgetMiB,
    /** Starts measuring the project's workspace while the returned hold is open. */
    hold(projectId: string, root: string, identity: HostIdentity | undefined) {
      const w = watchedOf(projectId, root, identity);
      w.holds++;
      if (!w.timer && !w.checking) void check(projectId, w);
      let released = false;
      return {
        /** Told once each time the project goes over its budget while this hold is open. */
        onFull(listener: (message: string) => void) {
          w.listeners.add(listener);
        },
        release() {
          if (released) return;
          released = true;
          w.holds--;
          w.listeners.clear();
          if (w.holds === 0 && w.timer) {
            clearTimeout(w.timer);
            w.timer = undefined;
          }
        },
      };
    },
    /**
     * Bytes the server may still write into the project's workspace (0 or less: none). Measured
     * when the last measurement is older than a check interval; in between, what the server wrote
     * itself (`added`) is counted, and what sandboxed processes write is the checks' business.
     */
    async room(projectId: string, root: string): Promise<number> {
      const watched = watchedOf(projectId, root, undefined);
      if (watched.checking) await watched.checking;
      if (Date.now() - watched.measuredAt > intervalMs) await check(projectId, watched);
      return options.budgetMiB * MiB - watched.usedBytes - watched.addedBytes;
    },
    /** Counts what the server just wrote into the project's workspace, until the next measurement. */
    added(projectId: string, bytes: number) {
      const watched = projects.get(projectId);
      if (watched) watched.addedBytes += bytes;
    },
    /**
     * The message to give when the project is over its budget, else null. A project found over
     * it is measured again first: files deleted from the IDE since then free the budget at once.
     */
    async full(projectId: string): Promise<string | null> {
      const watched = projects.get(projectId);
      if (watched?.checking) await watched.checking;
      if (!watched?.full) return null;
      await check(projectId, watched);
      return watched.full ? message() : null;
    },
  };
}

/** Sets the soft RLIMIT_FSIZE of every process of the project's uid, as that uid (see above). */
async function setFileSizeLimit(identity: HostIdentity | undefined, bytes: number): Promise<void> {
  if (!identity) return;
  const pids = await processesOf(identity.uid);
  const as = [
    "/usr/bin/setpriv",
    `--reuid=${identity.uid}`,
    `--regid=${identity.gid}`,
    "--clear-groups",
    "/usr/bin/prlimit",
  ];
  await Promise.all(
    pids.map((pid) => run(as[0]!, [...as.slice(1), "--pid", String(pid), `--fsize=${bytes}:`]).catch(() => undefined)),
  );
}

async function killAll(identity: HostIdentity | undefined): Promise<void> {
  if (!identity) return;
  for (const pid of await processesOf(identity.uid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

async function processesOf(uid: number): Promise<number[]> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const pids: number[] = [];
  // A few at a time: a busy machine has thousands of processes, and each read holds a descriptor.
  await mapLimit(
    entries.filter((name) => /^\d+$/.test(name)),
    16,
    async (name) => {
      const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      if (real !== undefined && Number(real) === uid) pids.push(Number(name));
    },
  );
  return pids;
}
