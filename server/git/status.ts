import type { GitFileChange, GitStatus } from "@/lib/git-schemas";

// `git status --porcelain=v2 --branch -z`: a format git keeps stable for programs. Hand-parsed
// because it is a dozen lines of splitting, and no maintained npm package reads v2 with -z.
// Source Control reads it as staged/changed lists (statusOf), the agent's prompt as status codes
// (summary.ts); both read the one parse.

/** One file git reports: `xy` its two status letters ("." unchanged, "??" untracked). */
export type PorcelainEntry = {
  kind: "tracked" | "conflicted" | "untracked";
  xy: string;
  path: string;
  /** A rename's or copy's source. */
  oldPath?: string;
};

export type Porcelain = {
  /** null when HEAD is detached. */
  branch: string | null;
  /** null before the first commit. */
  oid: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  /** In git's order. */
  entries: PorcelainEntry[];
};

export function parsePorcelainV2(output: string): Porcelain {
  const status: Porcelain = { branch: null, oid: null, upstream: null, ahead: 0, behind: 0, entries: [] };
  const records = output.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (!record) continue;
    if (record.startsWith("# ")) {
      const [, key, ...rest] = record.split(" ");
      const value = rest.join(" ");
      if (key === "branch.oid") status.oid = value === "(initial)" ? null : value;
      else if (key === "branch.head") status.branch = value === "(detached)" ? null : value;
      else if (key === "branch.upstream") status.upstream = value;
      else if (key === "branch.ab") {
        const match = /^\+(\d+) -(\d+)$/.exec(value);
        if (match) [status.ahead, status.behind] = [Number(match[1]), Number(match[2])];
      }
      continue;
    }
    const kind = record[0];
    const fields = record.split(" ");
    if (kind === "?") status.entries.push({ kind: "untracked", xy: "??", path: record.slice(2) });
    else if (kind === "1") status.entries.push({ kind: "tracked", xy: fields[1]!, path: fields.slice(8).join(" ") });
    else if (kind === "2") {
      // The source path follows as its own record.
      const oldPath = records[++i] ?? "";
      status.entries.push({ kind: "tracked", xy: fields[1]!, path: fields.slice(9).join(" "), oldPath });
    } else if (kind === "u")
      status.entries.push({ kind: "conflicted", xy: fields[1]!, path: fields.slice(10).join(" ") });
  }
  return status;
}

/** Source Control's view: what is staged, what changed in the work tree, untracked and conflicted files. */
export function statusOf(porcelain: Porcelain): Omit<GitStatus, "operation"> {
  const { entries, ...branch } = porcelain;
  const status: Omit<GitStatus, "operation"> = { ...branch, staged: [], changed: [], untracked: [], conflicted: [] };
  for (const entry of entries) {
    if (entry.kind === "untracked") status.untracked.push(entry.path);
    else if (entry.kind === "conflicted") status.conflicted.push({ path: entry.path, letter: "U" });
    else {
      const [x, y] = entry.xy;
      if (x !== ".") status.staged.push(change(entry.path, x!, entry.oldPath));
      if (y !== ".") status.changed.push(change(entry.path, y!));
    }
  }
  return status;
}

function change(filePath: string, letter: string, oldPath?: string): GitFileChange {
  const known = (["M", "A", "D", "R", "C", "T"] as const).find((l) => l === letter) ?? "M";
  return oldPath ? { path: filePath, oldPath, letter: known } : { path: filePath, letter: known };
}
