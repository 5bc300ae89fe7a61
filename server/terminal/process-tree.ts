import { readdirSync, readFileSync } from "node:fs";

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

function readProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may contain spaces and parentheses: parse after the last ")".
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      stats.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        session: Number(fields[3]),
      });
    } catch {
      // The process exited while we were scanning.
    }
  }
  return stats;
}

/**
 * Every process that belongs to the terminal whose session leader is `leader`: its session, its
 * process groups (an interactive bash puts each job in its own group) and its descendants.
 */
function processTree(leader: number): ProcStat[] {
  const stats = readProcStats();
  const members = new Map<number, ProcStat>();
  for (const s of stats) {
    if (s.pid === leader || s.session === leader || s.pgrp === leader) members.set(s.pid, s);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stats) {
      if (!members.has(s.pid) && members.has(s.ppid)) {
        members.set(s.pid, s);
        grew = true;
      }
    }
  }
  return [...members.values()];
}

export function processTreePids(leader: number): number[] {
  return processTree(leader).map((s) => s.pid);
}

function signal(pids: Iterable<number>, sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  }
}

/** SIGHUP (what a closed terminal sends, so shells pass it on to their jobs), then SIGKILL. */
export function terminateProcessTree(leader: number, graceMs = 500): void {
  const first = processTree(leader);
  signal(
    first.map((s) => s.pid),
    "SIGHUP",
  );
  setTimeout(() => {
    // Re-read so that a pid recycled by an unrelated process in the meantime is left alone.
    const now = new Map(readProcStats().map((s) => [s.pid, s]));
    const survivors = first
      .filter((s) => {
        const current = now.get(s.pid);
        return current && current.session === s.session && current.pgrp === s.pgrp;
      })
      .map((s) => s.pid);
    signal(new Set([...survivors, ...processTreePids(leader)]), "SIGKILL");
  }, graceMs).unref();
}
