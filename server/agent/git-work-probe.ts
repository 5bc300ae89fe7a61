import type { ToolContext } from "@/server/tools/define-tool";
import type { GitWorkProbe } from "@/server/agent/command-guard";
import { parsePorcelainV2 } from "@/server/git/status";

// How much work `git reset --hard` would throw away, asked of git in the agent's own shell (so in
// the sandbox, in the folder the command would run in): tracked files with changes, and commits
// on no remote. Untracked files are left alone by a reset, so they do not count.

const PROBE =
  "git status --porcelain=v2 -z 2>/dev/null || exit 3; echo; echo '--'; git rev-list --count HEAD --not --remotes 2>/dev/null || echo 0";

export function gitWorkProbe(ctx: Pick<ToolContext, "shell" | "signal">): GitWorkProbe {
  return async () => {
    const run = await ctx.shell.run(PROBE, { timeoutMs: 10_000, signal: ctx.signal });
    if (run.exitCode !== 0) return null;
    const marker = run.stdout.lastIndexOf("\n--\n");
    if (marker === -1) return null;
    const { entries } = parsePorcelainV2(run.stdout.slice(0, marker));
    const uncommitted = entries.filter((entry) => entry.kind !== "untracked").length;
    const unpushed = Number.parseInt(run.stdout.slice(marker + 4).trim(), 10);
    return { uncommitted, unpushed: Number.isFinite(unpushed) ? unpushed : 0 };
  };
}
