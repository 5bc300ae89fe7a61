import { statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { canSwitchIdentity, projectIdentity } from "@/server/sandbox/identity";
import { createSandbox } from "@/server/sandbox/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { shellTool } from "./shell";
import { useToolSessions } from "@/server/test/tool-session";

// The agent's shell runs git as the project's uid in a workspace whose root folder is the
// server's: git status, diff, log and commit must work there as they do for any coding agent.

const session = useToolSessions();
const shells: ShellSession[] = [];
let umask: number;
beforeAll(() => {
  umask = process.umask(0o002);
});
afterAll(() => process.umask(umask));
afterEach(async () => {
  await Promise.all(shells.splice(0).map((s) => s.dispose()));
});

const hosts = [
  { name: "per-project uid (a root server)", perProjectUid: true, runs: canSwitchIdentity() },
  { name: "the server's uid (an unprivileged server)", perProjectUid: false, runs: true },
];

describeSandboxed("git in the agent's shell", () => {
  for (const host of hosts) {
    it.runIf(host.runs)(
      `runs status, diff, commit and log: ${host.name}`,
      async () => {
        const s = await session();
        const sandbox = createSandbox({
          host: { mode: "bwrap", masks: [], perProjectUid: host.perProjectUid, limits: null },
        });
        const shell = createShellSession({ workspace: s.ctx.workspace, sessionId: "s1", sandbox });
        shells.push(shell);
        s.ctx.shell = shell;
        await writeFile(path.join(s.root, "a.txt"), "one\n");
        const setup = await s.run(shellTool, {
          command:
            "git init -q -b main && git config user.name Ada && git config user.email ada@example.com && git add a.txt && git commit -qm first",
        });
        expect(setup.llm).toMatch(/^Exit code: 0/);
        await writeFile(path.join(s.root, "a.txt"), "one\ntwo\n");
        const status = await s.run(shellTool, { command: "git status --short a.txt" });
        expect(status.llm).toBe("Exit code: 0\nstdout:\n M a.txt");
        const diff = await s.run(shellTool, { command: "git --no-pager diff" });
        expect(diff.llm).toMatch(/^Exit code: 0/);
        expect(diff.llm).toContain("+two");
        expect((await s.run(shellTool, { command: "git commit -qam second" })).llm).toMatch(/^Exit code: 0/);
        const log = await s.run(shellTool, { command: "git --no-pager log --format=%s" });
        expect(log.llm).toBe("Exit code: 0\nstdout:\nsecond\nfirst");
        if (host.perProjectUid)
          expect(statSync(path.join(s.root, ".git", "index")).uid).toBe(projectIdentity(s.root).uid);
      },
      60_000,
    );
  }
});
