import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxLimits } from "@/lib/sandbox-limits";
import { dropIdentity } from "./identity";

// cgroups v2 for sandboxes, where the host hands the server a cgroup tree of its own (a
// "delegated" hierarchy: systemd's Delegate=yes, or a container with its own cgroup namespace
// and a writable /sys/fs/cgroup). Each sandbox then gets a cgroup with memory.max, pids.max and
// cpu.weight: one budget for everything the command starts, which rlimits (per process) cannot
// give. Elsewhere (cgroup v1 or hybrid hosts like this one, or a tree the server may not write)
// the rlimits of limits.ts stay the only limits, and start-up says so. Nothing is claimed before
// it worked: the tree counts as delegated only once the server has moved itself into a leaf and
// turned the controllers on for the sandboxes' parent, which is what the kernel requires (a
// cgroup with processes cannot hand controllers to children).

const CONTROLLERS = ["memory", "pids", "cpu"] as const;
const MiB = 1024 * 1024;
/** Below the default weight of 100: a busy sandbox yields the CPU to the server. */
export const SANDBOX_CPU_WEIGHT = 50;

export type CgroupSupport = { kind: "v2"; sandboxes: string } | { kind: "none"; reason: string };

export type CgroupPaths = {
  /** Where the cgroup file system is mounted (/sys/fs/cgroup). */
  root: string;
  /** This process's /proc/self/cgroup. */
  self: string;
  pid: number;
};

const HOST: CgroupPaths = { root: "/sys/fs/cgroup", self: "/proc/self/cgroup", pid: process.pid };

/** Finds a delegated cgroup v2 tree and prepares it for sandboxes, or says why there is none. */
export function setUpCgroups(paths: CgroupPaths = HOST): CgroupSupport {
  if (!existsSync(path.join(paths.root, "cgroup.controllers"))) {
    return { kind: "none", reason: `no cgroup v2 hierarchy at ${paths.root} (cgroup v1 or hybrid)` };
  }
  const own = /^0::(\/.*)$/m.exec(readText(paths.self) ?? "")?.[1];
  if (!own) return { kind: "none", reason: "this process is in no cgroup v2 group" };
  const base = path.join(paths.root, own);
  const available = (readText(path.join(base, "cgroup.controllers")) ?? "").split(/\s+/);
  const missing = CONTROLLERS.filter((c) => !available.includes(c));
  if (missing.length)
    return { kind: "none", reason: `the controllers ${missing.join(", ")} are not delegated to ${base}` };
  try {
    // The server's own processes move into a leaf, so its group may hand controllers down.
    const server = path.join(base, "tandem-server");
    mkdirSync(server, { recursive: true });
    for (const pid of (readText(path.join(base, "cgroup.procs")) ?? String(paths.pid)).split(/\s+/).filter(Boolean)) {
      writeFileSync(path.join(server, "cgroup.procs"), pid);
    }
    const enable = CONTROLLERS.map((c) => `+${c}`).join(" ");
    writeFileSync(path.join(base, "cgroup.subtree_control"), enable);
    const sandboxes = path.join(base, "tandem-sandboxes");
    mkdirSync(sandboxes, { recursive: true });
    writeFileSync(path.join(sandboxes, "cgroup.subtree_control"), enable);
    return { kind: "v2", sandboxes };
  } catch (error) {
    return { kind: "none", reason: `${base} is not writable by the server (${(error as Error).message})` };
  }
}

/** A sandbox's own cgroup, with its limits written; `procs` is where its first process joins. */
export function createSandboxCgroup(
  sandboxes: string,
  name: string,
  limits: SandboxLimits,
): { dir: string; procs: string; remove(): void } {
  const dir = path.join(sandboxes, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "memory.max"), String(limits.memoryMiB * MiB));
  writeFileSync(path.join(dir, "pids.max"), String(limits.processes));
  writeFileSync(path.join(dir, "cpu.weight"), String(SANDBOX_CPU_WEIGHT));
  return {
    dir,
    procs: path.join(dir, "cgroup.procs"),
    remove() {
      // The kernel removes an empty cgroup on rmdir; one still holding a process stays until the next start-up's sweep.
      try {
        rmdirSync(dir);
      } catch {
        // still populated
      }
    },
  };
}

/**
 * Runs `command` inside the cgroup: a root shell joins the cgroup first, then drops to the
 * project's identity with setpriv, so not one process of the sandbox starts outside it (moving
 * the pid after spawn would race with the command's first fork).
 */
export function joinCgroupPrefix(procs: string, identity: { uid: number; gid: number } | undefined): string[] {
  return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, ...dropIdentity(identity)];
}

export function describeCgroups(support: CgroupSupport, limits: SandboxLimits): string {
  if (support.kind === "none") return `cgroups: not used (${support.reason})`;
  return `cgroups v2 per sandbox (memory.max ${limits.memoryMiB} MiB, pids.max ${limits.processes}, cpu.weight ${SANDBOX_CPU_WEIGHT}) under ${support.sandboxes}`;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
