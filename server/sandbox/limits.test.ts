import http from "node:http";
import type { AddressInfo } from "node:net";
import { statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellTool } from "@/server/tools/shell";
import { useToolSessions } from "@/server/test/tool-session";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { canSwitchIdentity } from "./identity";
import { bwrapAvailable } from "./launcher";
import type { SandboxLimits } from "@/lib/sandbox-limits";
import { createSandbox } from "./sandbox";

// A fork bomb, a memory hog and an endless `yes > file` in the agent's shell: each ends with a
// message that names the limit, and the server keeps answering meanwhile. Process limits need
// the per-project uid (RLIMIT_NPROC is counted per uid and not enforced for root).

const limits: SandboxLimits = {
  processes: 64,
  openFiles: 256,
  memoryMiB: 256,
  fileSizeMiB: 5,
  diskMiB: 1024,
  scratchMiB: 2,
  nice: 5,
};
const session = useToolSessions();

describe.runIf(canSwitchIdentity() && (await bwrapAvailable()))("sandbox limits", () => {
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

  async function shellRun(command: string, timeout: number) {
    const s = await session({ sandbox: { mode: "bwrap", network: { policy: "off", allowHosts: [] }, limits } });
    const sandbox = createSandbox({ host: { mode: "bwrap", masks: [], perProjectUid: true, limits } });
    const shell = createShellSession({ workspace: s.ctx.workspace, sessionId: "limits", sandbox });
    shells.push(shell);
    // The server answers while the command runs: probed from its start (a limit can end the
    // command within a few hundred milliseconds), and every probe sent is waited for.
    const answered: number[] = [];
    const pending: Promise<unknown>[] = [];
    const ask = () => {
      const started = Date.now();
      pending.push(fetch(url).then(async (r) => (await r.text()) === "alive" && answered.push(Date.now() - started)));
    };
    ask();
    const probe = setInterval(ask, 50);
    try {
      const run = await s.run(shellTool, { command, timeout }, { shell });
      return { run, answered, workspace: s.ctx.workspace.root };
    } finally {
      clearInterval(probe);
      await Promise.allSettled(pending);
    }
  }

  it("stops a fork bomb at the process limit", async () => {
    // The bomb goes to the background, so the shell then waits: a shell that ended at once would
    // take its process group (the bomb) with it, sometimes before the bomb reached the limit.
    const { run, answered } = await shellRun(":(){ :|:& };:; sleep 2", 4);
    expect(String(run.llm)).toMatch(/limit of 64 processes/);
    expect(answered.length).toBeGreaterThan(0);
    expect(Math.max(...answered)).toBeLessThan(2_000);
  }, 30_000);

  it("stops a memory hog at the memory limit", async () => {
    const { run, answered } = await shellRun(`node -e "const a = []; for (;;) a.push(Buffer.alloc(8e6, 1))"`, 30);
    expect(String(run.llm)).toMatch(/memory limit of 256 MiB/);
    expect(answered.length).toBeGreaterThan(0);
  }, 40_000);

  it("stops an endless yes > file at the file size limit", async () => {
    const { run, workspace } = await shellRun("yes > big.txt", 30);
    expect(String(run.llm)).toMatch(/size limit of 5 MiB per file/);
    expect(statSync(path.join(workspace, "big.txt")).size).toBeLessThanOrEqual(5 * 1024 * 1024);
  }, 40_000);

  it("caps /tmp, which lives in memory: an endless yes > /tmp/file ends with a clear message", async () => {
    const { run, answered } = await shellRun("yes > /tmp/big.txt; status=$?; du -k /tmp/big.txt; exit $status", 30);
    expect(String(run.llm)).toMatch(/No space left on device/);
    expect(String(run.llm)).toMatch(/hold at most 2 MiB each/);
    expect(Number(/(\d+)\s+\/tmp\/big\.txt/.exec(String(run.llm))?.[1])).toBeLessThanOrEqual(2048);
    expect(answered.length).toBeGreaterThan(0);
  }, 40_000);
});
