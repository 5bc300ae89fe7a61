import type { GitProgress } from "@/lib/git-schemas";

// git --progress writes lines such as "Receiving objects:  45% (450/1000), 1.2 MiB | 3 MiB/s",
// ended by \r while they update and \n when done (remote ones prefixed "remote: ").
const LINE = /^(?:remote: )?([A-Z][A-Za-z ]+?):\s+(\d+)% \((\d+)\/(\d+)\)/;
const COUNT = /^(?:remote: )?([A-Z][A-Za-z ]+?):\s+(\d+)(?:,|$)/;

/** Splits stderr chunks into progress updates; `onProgress` gets each phase's latest state. */
export function progressReader(onProgress: (progress: GitProgress) => void) {
  let pending = "";
  return (chunk: string) => {
    pending += chunk;
    const parts = pending.split(/[\r\n]/);
    pending = parts.pop() ?? "";
    for (const line of parts) {
      const match = LINE.exec(line.trim());
      if (match) {
        onProgress({ phase: match[1]!, percent: Number(match[2]), done: Number(match[3]), total: Number(match[4]) });
        continue;
      }
      const count = COUNT.exec(line.trim());
      if (count) onProgress({ phase: count[1]!, percent: null, done: Number(count[2]), total: null });
    }
  };
}
