import type { ToolContext } from "@/server/tools/define-tool";
import type { GitWorkProbe } from "@/server/agent/command-guard";

// How much work `git reset --hard` would throw away, asked of git in the agent's own shell (so in
// the sandbox, in the folder the command would run in): tracked files with changes, and commits
// on no remote. Untracked files are left alone by a reset, so they do not count.

const PROBE =
  "git status --porcelain=v2 2>/dev/null || exit 3; echo '--'; git rev-list --count HEAD --not --remotes 2>/dev/null || echo 0";

export function gitWorkProbe(ctx: Pick<ToolContext, "shell" | "signal">): GitWorkProbe {
  return async () => {
    const run = await ctx.shell.run(PROBE, { timeoutMs: 10_000, signal: ctx.signal });
    if (run.exitCode !== 0) return null;
    const lines = run.stdout.split("\n");
    const marker = lines.indexOf("--");
    if (marker === -1) return null;
    const uncommitted = lines.slice(0, marker).filter((line) => /^[12u] /.test(line)).length;
    const unpushed = Number.parseInt(lines[marker + 1]?.trim() ?? "", 10);
    return { uncommitted, unpushed: Number.isFinite(unpushed) ? unpushed : 0 };
  };
}
