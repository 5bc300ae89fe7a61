// Resource limits of every sandboxed process. cgroups v2 would give one budget per project
// (memory.max, pids.max, cpu.weight) but needs a delegated cgroup tree the server may write,
// which neither a plain container nor a cgroup v1 host (this one) offers; rlimits work
// everywhere, are inherited by everything the command starts, and are set by util-linux's
// prlimit before bubblewrap runs, so the sandboxed code cannot raise them.

import type { SandboxLimits } from "@/lib/sandbox-limits";

const MiB = 1024 * 1024;

/**
 * The command that sets the rlimits and then runs `command`. Niceness is not in it: it goes on
 * the sandboxed command itself (nicePrefix), inside the sandbox.
 */
export function limitPrefix(limits: SandboxLimits, perProjectUid: boolean, growthStopped = false): string[] {
  return [
    "/usr/bin/prlimit",
    // RLIMIT_NPROC counts every process of the real uid: without a uid of the project's own it
    // would count the server's (or, for root, not be enforced at all).
    ...(perProjectUid ? [`--nproc=${limits.processes}`] : []),
    `--nofile=${limits.openFiles}`,
    `--data=${limits.memoryMiB * MiB}`,
    // Past the disk budget the soft limit is 0 and the hard one stays, so it can be lifted again.
    growthStopped ? `--fsize=0:${limits.fileSizeMiB * MiB}` : `--fsize=${limits.fileSizeMiB * MiB}`,
    "--",
  ];
}

/**
 * Lowers the priority of a command and all it starts: the sandbox's niceness, or BACKGROUND_NICE
 * for background work, sandboxed or not; nothing at niceness 0. In a sandbox it runs inside, after
 * the network bridge, which hands its listener to the server as it starts (bridge-script.ts) and
 * then only waits. Raising one's own niceness needs no privilege, and the command cannot lower it
 * again.
 */
export function nicePrefix(limits: SandboxLimits | null, background = false): string[] {
  const nice = background ? Math.max(limits?.nice ?? 0, BACKGROUND_NICE) : (limits?.nice ?? 0);
  return nice > 0 ? ["/usr/bin/nice", "-n", String(nice)] : [];
}

/**
 * The niceness of background work (language servers' analysis), with or without a sandbox: at 10
 * a busy process gets about a tenth of the CPU that one at 0 gets, so the server, its requests,
 * terminals and, on a shared machine, the browser go first. A language server starting on a
 * project (tsserver loading it takes seconds of CPU) no longer slows the page that opened it.
 */
export const BACKGROUND_NICE = 10;

export function describeLimits(limits: SandboxLimits | null, perProjectUid: boolean): string {
  if (!limits) return "none";
  const parts = [
    perProjectUid ? `${limits.processes} processes per project` : "no process limit (needs root for per-project uids)",
    `${limits.memoryMiB} MiB memory per process`,
    `${limits.openFiles} open files`,
    `${limits.fileSizeMiB} MiB per file`,
    perProjectUid
      ? `${limits.diskMiB} MiB disk per workspace`
      : `${limits.diskMiB} MiB disk per workspace (for commands started past it only: needs root)`,
    `${limits.scratchMiB} MiB in /tmp and in the home`,
    `nice ${limits.nice}`,
  ];
  return `rlimits (${parts.join(", ")})`;
}

/**
 * A sentence naming the limit a command ran into, from what it printed and how it ended, or
 * null. Tools print these failures in many ways; these are the common ones.
 */
export function limitNote(output: string, signal: string | null, limits: SandboxLimits | null): string | null {
  if (!limits) return null;
  if (signal === "SIGXFSZ" || /File size limit exceeded/i.test(output)) {
    return `A file reached the sandbox's size limit of ${limits.fileSizeMiB} MiB per file, and the command writing it was stopped.`;
  }
  if (/fork: (retry: )?Resource temporarily unavailable|Cannot fork|EAGAIN.*spawn|spawn.*EAGAIN/i.test(output)) {
    return `The command reached the sandbox's limit of ${limits.processes} processes for this project, so new processes could not start.`;
  }
  if (/Cannot allocate memory|out of memory|MemoryError|allocation failed|ENOMEM/i.test(output)) {
    return `A process reached the sandbox's memory limit of ${limits.memoryMiB} MiB and could not allocate more.`;
  }
  if (/No space left on device|ENOSPC/i.test(output)) {
    return `The sandbox's /tmp and home hold at most ${limits.scratchMiB} MiB each (they live in memory); keep large files in the workspace.`;
  }
  if (/Too many open files|EMFILE/i.test(output)) {
    return `A process reached the sandbox's limit of ${limits.openFiles} open files.`;
  }
  return null;
}
