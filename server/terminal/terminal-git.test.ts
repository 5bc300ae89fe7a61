import { mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { canSwitchIdentity, projectIdentity } from "@/server/sandbox/identity";
import { createSandbox } from "@/server/sandbox/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { TerminalService } from "./terminal-service";

// git in a person's terminal, as the project's own uid: the workspace's root folder belongs to
// the server, which git would call "dubious ownership" and refuse the repository.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let umask: number;

beforeAll(() => {
  // What the server runs with (identity.ts): files it writes stay group-writable for the project.
  umask = process.umask(0o002);
});
afterAll(() => process.umask(umask));

const hosts = [
  { name: "per-project uid (a root server)", perProjectUid: true, runs: canSwitchIdentity() },
  { name: "the server's uid (an unprivileged server)", perProjectUid: false, runs: true },
];

describeSandboxed("git in a terminal", () => {
  for (const host of hosts) {
    it.runIf(host.runs)(
      `runs status, log, diff and commit in the workspace's repository: ${host.name}`,
      async () => {
        const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "tandem-term-git-")));
        const service = new TerminalService({
          sandbox: createSandbox({
            host: { mode: "bwrap", masks: [], perProjectUid: host.perProjectUid, limits: null },
          }),
        });
        try {
          writeFileSync(path.join(workspace, "a.txt"), "one\n");
          const terminal = service.get("p1", (await service.create("p1", workspace, { cols: 200, rows: 50 })).id)!;
          let output = "";
          terminal.attach({
            output: (frame) => (output += frame.toString("utf8")),
            message: () => {},
            close: () => {},
          });
          const run = async (command: string, done: RegExp) => {
            const from = output.length;
            terminal.write(`${command}\r`);
            for (let waited = 0; !done.test(output.slice(from)); waited += 20) {
              if (waited > 15_000)
                throw new Error(`timed out on ${command}: ${JSON.stringify(output.slice(from).slice(-600))}`);
              await sleep(20);
            }
            // Without colours and the shell's bracketed-paste switches.
            return output.slice(from).replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");
          };
          const setup = await run(
            "git init -q -b main && git config user.name Ada && git config user.email ada@example.com && git add a.txt && git commit -qm first; echo SETUP-$?",
            /SETUP-\d+/,
          );
          expect(setup).toMatch(/SETUP-0/);
          writeFileSync(path.join(workspace, "a.txt"), "one\ntwo\n");
          const status = await run("git status --short; echo STATUS-$?", /STATUS-\d+/);
          expect(status).toMatch(/ M a\.txt/);
          expect(status).toMatch(/STATUS-0/);
          const diff = await run("git --no-pager diff; echo DIFF-$?", /DIFF-\d+/);
          expect(diff).toMatch(/\+two/);
          expect(diff).toMatch(/DIFF-0/);
          const commit = await run("git commit -qam second; echo COMMIT-$?", /COMMIT-\d+/);
          expect(commit).toMatch(/COMMIT-0/);
          const log = await run("git --no-pager log --format=%s; echo LOG-$?", /LOG-\d+/);
          expect(log).toMatch(/second\r?\n.*first/s);
          expect(log).toMatch(/LOG-0/);
          expect(output).not.toMatch(/dubious ownership/);
          // The repository is the project's: made by its uid, not by the server.
          if (host.perProjectUid)
            expect(statSync(path.join(workspace, ".git", "index")).uid).toBe(projectIdentity(workspace).uid);
        } finally {
          service.disposeAll();
          rmSync(workspace, { recursive: true, force: true });
        }
      },
      60_000,
    );
  }
});
