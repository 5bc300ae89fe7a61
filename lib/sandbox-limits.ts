// The per-process limits of sandboxed commands as configuration (server/env/ reads them from
// TANDEM_SANDBOX_* variables); server/sandbox/limits.ts turns them into rlimits and niceness.

export type SandboxLimits = {
  /** Processes and threads of the project's host uid (RLIMIT_NPROC; needs the per-project uid). */
  processes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Memory per process, in MiB (RLIMIT_DATA: heap and private mappings). */
  memoryMiB: number;
  /** Largest file a process may write, in MiB (RLIMIT_FSIZE): what stops an endless `yes > file`. */
  fileSizeMiB: number;
  /** Disk use of a project's workspace, in MiB (measured by the server: disk-budget.ts). */
  diskMiB: number;
  /** Size of each of the sandbox's in-memory folders, /tmp and the home, in MiB: they live in RAM, so they are capped too. */
  scratchMiB: number;
  /** Scheduling niceness: sandboxed work yields the CPU to the server and its requests. */
  nice: number;
};

export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 1024,
  openFiles: 4096,
  memoryMiB: 4096,
  fileSizeMiB: 1024,
  diskMiB: 10240,
  scratchMiB: 1024,
  nice: 5,
};
