// Memory and CPU of a process tree from /proc, for the benchmarks that measure a running Tandem
// (bench:memory, bench:monorepo). PSS (proportional set size) is the fair total: PostgreSQL's and
// Chromium's processes share memory, which RSS would count once per process.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

export type Usage = { pid: number; name: string; rssKb: number; pssKb: number };

export function usageOf(pid: number): Usage | null {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    return { pid, name: describe(cmdline), rssKb: field("Rss"), pssKb: field("Pss") };
  } catch {
    return null; // gone since it was listed
  }
}

function describe(cmdline: string[]): string {
  const [exe = "?", ...args] = cmdline;
  if (/postgres/.test(exe) || /^postgres:/.test(exe)) return cmdline.join(" ").replace(/\s+/g, " ").slice(0, 60);
  const script = args.find((a) => !a.startsWith("-") && a !== "tsx");
  const relative = script ? path.relative(ROOT, path.resolve(ROOT, script)) || script : "";
  // A script outside the project (code-server's) by its name, and the role its process plays.
  const role = args.find((a) => a.startsWith("--type="));
  return `${path.basename(exe)} ${relative.startsWith("..") ? path.basename(relative) : relative}${role ? ` ${role}` : ""}`
    .trim()
    .slice(0, 60);
}

/** The process and everything below it, from /proc's parent links. */
export function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while listed
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

/** CPU time (user and system) that the processes have used so far, in ms; /proc counts in clock ticks of 10 ms. */
export function cpuMsOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited since it was listed
    }
  }
  return ticks * 10;
}
