import http from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellTool } from "@/server/tools/shell";
import { writeFileTool } from "@/server/tools/write-file";
import { useToolSessions } from "@/server/test/tool-session";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { createTerminalService } from "@/server/terminal";
import { createDiskBudget } from "./disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import { canSwitchIdentity } from "./identity";
import { bwrapAvailable } from "./launcher";
import type { SandboxLimits } from "@/lib/sandbox-limits";
import { createSandbox } from "./sandbox";

// A project's workspace past its disk budget: an endless `yes > file` (under the per-file limit)
// and a loop writing many small files each end with a message naming the budget, the agent's
// file writes are refused, the server answers meanwhile, and deleting files lifts it. Stopping
// running commands needs the per-project uid (a root server).

const MiB = 1024 * 1024;
const limits: SandboxLimits = {
  processes: 256,
  openFiles: 256,
  memoryMiB: 1024,
  fileSizeMiB: 2048,
  diskMiB: 4,
  scratchMiB: 64,
  nice: 5,
};
const session = useToolSessions();

describe.runIf(canSwitchIdentity() && (await bwrapAvailable()))("disk budget", () => {
  let server: http.Server;
  let url: string;
  const shells: ShellSession[] = [];

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end("alive"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.close();
    await Promise.all(shells.map((s) => s.dispose()));
  });

  async function project() {
    const budget = createDiskBudget({
      budgetMiB: limits.diskMiB,
      fileSizeMiB: limits.fileSizeMiB,
      intervalMs: 200,
      measure: diskUsageBytes,
    });
    const sandbox = createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: true, limits },
      diskBudget: budget,
    });
    const projectId = `disk-${shells.length}`;
    const s = await session({
      sandbox: {
        mode: "bwrap",
        network: { policy: "off", allowHosts: [] },
        limits,
        diskFull: () => sandbox.diskFull(projectId),
      },
    });
    const shell = createShellSession({ workspace: s.ctx.workspace, projectId, sessionId: projectId, sandbox });
    shells.push(shell);
    const run = async (command: string) => String((await s.run(shellTool, { command, timeout: 60 }, { shell })).llm);
    return { s, shell, run, sandbox, projectId, root: s.ctx.workspace.root };
  }

  it("stops an endless yes > file at the budget, refuses tool writes, and lifts it once files are deleted", async () => {
    const { s, run, root } = await project();
    const answered: boolean[] = [];
    const probe = setInterval(
      () => void fetch(url).then(async (r) => answered.push((await r.text()) === "alive")),
      100,
    );
    let text: string;
    try {
      text = await run("yes > big.txt");
    } finally {
      clearInterval(probe);
    }
    expect(text).toMatch(/disk budget of 4 MB is reached/);
    expect(answered.length).toBeGreaterThan(0);
    // Stopped by the budget (at its next write after the check that found it over), not by the per-file limit.
    expect(statSync(path.join(root, "big.txt")).size).toBeLessThan(limits.fileSizeMiB * MiB);

    const refused = await s.run(writeFileTool, { path: "notes.txt", content: "more" });
    expect(refused.error?.code).toBe("DISK_FULL");
    expect(String(refused.llm)).toMatch(/disk budget of 4 MB is reached.*Delete files/s);
    // A command started now cannot grow a file either, but it can free space.
    expect(await run("echo hi > small.txt")).toMatch(/disk budget of 4 MB/);
    await run("rm big.txt");
    const written = await s.run(writeFileTool, { path: "notes.txt", content: "more" });
    expect(written.error).toBeUndefined();
    expect(await run("echo hi > small.txt && cat small.txt")).toMatch(/stdout:\nhi/);
  }, 90_000);

  it("stops a loop writing many small files at the budget", async () => {
    const { run, root } = await project();
    const text = await run(
      "i=0; while :; do i=$((i+1)); head -c 65536 /dev/zero > f$i || break; done; echo stopped at $i",
    );
    expect(text).toMatch(/stopped at \d+/);
    expect(text).toMatch(/disk budget of 4 MB is reached/);
    // Far fewer than an unlimited loop would have written in that time.
    expect(readdirSync(root).filter((name) => /^f\d+$/.test(name)).length).toBeLessThan(5_000);
  }, 90_000);

  it("says in the terminal why the command writing was stopped, and the shell goes on", async () => {
    const { sandbox, projectId, root } = await project();
    const terminals = createTerminalService({ sandbox });
    try {
      const info = await terminals.create(projectId, root, { cols: 200, rows: 30 });
      const terminal = terminals.get(projectId, info.id)!;
      let text = "";
      terminal.attach({ output: (frame) => (text += frame.toString()), message: () => {}, close: () => {} });
      terminal.write("yes > big.txt; echo exit=$?\r");
      const until = async (pattern: RegExp) => {
        for (const started = Date.now(); !pattern.test(text); await new Promise((r) => setTimeout(r, 50))) {
          if (Date.now() - started > 30_000) throw new Error(`no ${pattern} in ${JSON.stringify(text.slice(-500))}`);
        }
      };
      await until(/tandem: This project's disk budget of 4 MB is reached/);
      // bash reports the signal; the shell itself is still there and answers.
      await until(/exit=153/);
      terminal.write('rm big.txt && echo fr""eed\r');
      await until(/freed/);
    } finally {
      terminals.disposeAll();
    }
  }, 60_000);
});
