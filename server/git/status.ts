import type { GitFileChange, GitStatus } from "@/lib/git-schemas";

// `git status --porcelain=v2 --branch -z`: a format git keeps stable for programs. Hand-parsed
// because it is a dozen lines of splitting, and no maintained npm package reads v2 with -z.
export function parsePorcelainV2(output: string): Omit<GitStatus, "operation"> {
  const status: Omit<GitStatus, "operation"> = {
    branch: null,
    oid: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    staged: [],
    changed: [],
    untracked: [],
    conflicted: [],
  };
  const entries = output.split("\0");
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (!entry) continue;
    if (entry.startsWith("# ")) {
      const [, key, ...rest] = entry.split(" ");
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
    const kind = entry[0];
    if (kind === "?") {
      status.untracked.push(entry.slice(2));
    } else if (kind === "1" || kind === "2") {
      const fields = entry.split(" ");
      const xy = fields[1]!;
      const fixed = kind === "1" ? 8 : 9;
      const filePath = fields.slice(fixed).join(" ");
      const oldPath = kind === "2" ? entries[++i] : undefined;
      if (xy[0] !== ".") status.staged.push(change(filePath, xy[0]!, oldPath));
      if (xy[1] !== ".") status.changed.push(change(filePath, xy[1]!));
    } else if (kind === "u") {
      const fields = entry.split(" ");
      status.conflicted.push({ path: fields.slice(10).join(" "), letter: "U" });
    }
  }
  return status;
}

function change(filePath: string, letter: string, oldPath?: string): GitFileChange {
  const known = (["M", "A", "D", "R", "C", "T"] as const).find((l) => l === letter) ?? "M";
  return oldPath ? { path: filePath, oldPath, letter: known } : { path: filePath, letter: known };
}
