import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import type { SandboxMode } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import { testSandbox } from "@/server/test/sandbox";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { shellKillTool, shellOutputTool, shellTool } from "./shell";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const shells: ShellSession[] = [];
afterEach(async () => {
  await Promise.all(shells.splice(0).map((s) => s.dispose()));
});

async function shellSession(mode: SandboxMode, env: Record<string, string> = {}) {
  const s = await session({ sandbox: { mode, network: { policy: "off", allowHosts: [] }, limits: null } });
  const shell = createShellSession({ workspace: s.ctx.workspace, sessionId: "s1", sandbox: testSandbox(mode), env });
  shells.push(shell);
  s.ctx.shell = shell;
  return s;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const shellSuite = (mode: SandboxMode) => () => {
  it("runs a command and returns exit code, stdout and stderr", async () => {
    const s = await shellSession(mode);
    const run = await s.run(shellTool, { command: "echo out; echo err >&2; exit 3" });
    expect(run.error).toBeUndefined();
    expect(run.llm).toBe("Exit code: 3\nstdout:\nout\nstderr:\nerr");
    expect(run.display).toMatchObject({ kind: "terminal", exitCode: 3 });
  });

  it("writes a call's output to a log named after the call as it runs, which survives to be read after a crash", async () => {
    const s = await shellSession(mode);
    const shell = s.ctx.shell;
    const aborted = new AbortController();
    const running = shell.run("echo first-line; sleep 30; echo never", {
      timeoutMs: 60_000,
      signal: aborted.signal,
      logName: "call_crash",
    });
    let captured: Awaited<ReturnType<ShellSession["capturedOutput"]>> = null;
    for (let i = 0; i < 100 && !captured?.text.includes("first-line"); i++) {
      await sleep(50);
      captured = await shell.capturedOutput("call_crash");
    }
    expect(captured?.text).toContain("first-line");
    expect(captured?.path).toMatch(/^\.tandem\/shell\/.+call-call_crash\.log$/);
    aborted.abort();
    await running;
    expect(await shell.capturedOutput("no-such-call")).toBeNull();
  });

  it("carries the working directory and exported variables over between calls", async () => {
    const s = await shellSession(mode);
    await mkdir(path.join(s.root, "sub"));
    await s.run(shellTool, { command: "cd sub && export GREETING='hello world' && LOCAL_ONLY=1" });
    const run = await s.run(shellTool, { command: 'pwd; echo "$GREETING|${LOCAL_ONLY:-unset}"' });
    // Sandboxed, the shell sees the workspace at /workspace, whatever the server's data directory.
    const root = mode === "bwrap" ? "/workspace" : s.root;
    expect(run.llm).toContain(`${root}/sub\nhello world|unset`);
    // Even a command that exits early keeps its state.
    await s.run(shellTool, { command: "export N=2; cd ..; exit 1" });
    expect((await s.run(shellTool, { command: "echo $N; pwd" })).llm).toMatch(new RegExp(`2\n${root}$`));
  });

  it("streams output line by line while the command runs", async () => {
    const s = await shellSession(mode);
    const done = s.run(shellTool, { command: "echo first; sleep 1; echo second" });
    await sleep(700);
    expect(s.progress).toEqual([{ type: "output", stream: "stdout", text: "first\n" }]);
    await done;
    expect(s.progress.map((p) => p.type === "output" && p.text)).toEqual(["first\n", "second\n"]);
  });

  it("on timeout kills the command and everything it started", async () => {
    const s = await shellSession(mode);
    const started = Date.now();
    const run = await s.run(shellTool, { command: "(sleep 2; touch late.txt) & sleep 100", timeout: 1 });
    expect(run.error?.code).toBe("TIMEOUT");
    expect(Date.now() - started).toBeLessThan(5000);
    await sleep(2500);
    expect(existsSync(path.join(s.root, "late.txt"))).toBe(false);
  });

  it("stops on abort", async () => {
    const s = await shellSession(mode);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const run = await s.run(shellTool, { command: "echo begun; sleep 100" }, { signal: controller.signal });
    expect(run.error?.code).toBe("ABORTED");
    expect(run.llm).toContain("begun");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("runs background jobs: output, status, kill", async () => {
    const s = await shellSession(mode);
    const start = await s.run(shellTool, {
      command: "for i in 1 2 3; do echo tick $i; sleep 0.2; done; sleep 100",
      run_in_background: true,
    });
    expect(start.meta?.jobId).toBe("bg1");
    await sleep(1000);
    const first = await s.run(shellOutputTool, { id: "bg1" });
    expect(first.llm).toContain("running");
    expect(first.llm).toContain("tick 1\ntick 2\ntick 3");
    const second = await s.run(shellOutputTool, { id: "bg1" });
    expect(second.llm).toContain("(no new output)");
    expect((await s.run(shellKillTool, { id: "bg1" })).llm).toContain("Stopped job bg1");
    expect((await s.run(shellOutputTool, { id: "bg1" })).llm).toMatch(/exited with (signal SIG|\d)/);
    expect((await s.run(shellKillTool, { id: "bg1" })).llm).toContain("already exited");
    expect((await s.run(shellOutputTool, { id: "bg9" })).error?.code).toBe("NOT_FOUND");
  });

  it("keeps secrets out of the environment", async () => {
    process.env.DATABASE_URL = "postgres://secret@db/x";
    process.env.OPENAI_API_KEY = "sk-secret";
    process.env.BETTER_AUTH_SECRET = "auth-secret";
    const s = await shellSession(mode, { GITHUB_TOKEN: "ghp-secret", MY_SECRET: "x-secret", LANG: "C.UTF-8" });
    const run = await s.run(shellTool, { command: "env" });
    expect(run.llm).toContain("PATH=");
    expect(run.llm).not.toMatch(/secret|DATABASE_URL|_KEY=|_TOKEN=|_SECRET=/i);
  });

  it("cuts long output, keeping the end, and saves all of it to a file", async () => {
    const s = await shellSession(mode);
    const run = await s.run(shellTool, { command: "seq 1 100000" });
    const text = run.llm as string;
    expect(text).toContain("\n100000");
    expect(text).not.toContain("\n5\n");
    const saved = text.match(/complete output is in '([^']+)'/)![1]!;
    const full = await readFile(path.join(s.root, saved), "utf8");
    expect(full.split("\n")).toHaveLength(100001);
    expect(run.metrics.truncated).toBe(true);
  });
};

describe("shell (sandbox: none)", shellSuite("none"));
describeSandboxed("shell (sandbox: bwrap)", shellSuite("bwrap"));

describeSandboxed("shell network", () => {
  it("cannot reach a server on the host's 127.0.0.1", async () => {
    const server = createServer((_req, res) => res.end("reached"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const s = await shellSession("bwrap");
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
      const run = await s.run(shellTool, { command: probe, timeout: 10 });
      expect(run.llm).not.toContain("reached");
      expect(run.llm).toMatch(/Connection refused|Network is unreachable|Exit code: 1/);
      // The same probe from outside the sandbox does connect, so the test proves the sandbox.
      const outside = await s.run(
        shellTool,
        { command: probe, timeout: 10 },
        { shell: createShellSession({ workspace: s.ctx.workspace, sessionId: "s2", sandbox: testSandbox("none") }) },
      );
      expect(outside.llm).toContain("reached");
    } finally {
      server.close();
    }
  });

  it("says an internal host is refused whatever the project allows, and where an admin allows it; no Allow card", async () => {
    const policy = { policy: "open" as const, allowHosts: [] };
    const s = await session({ sandbox: { mode: "bwrap", network: policy, limits: null } });
    const sandbox = createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: false, limits: null },
      policies: { get: async () => policy },
      resolve: async () => [{ address: "10.20.0.5", family: 4 }],
    });
    const shell = createShellSession({ workspace: s.ctx.workspace, sessionId: "s1", sandbox, projectId: "p" });
    shells.push(shell);
    s.ctx.shell = shell;
    const run = await s.run(shellTool, { command: "curl -sS --max-time 5 http://git.office.lan/", timeout: 20 });
    expect(run.llm).toContain("refused git.office.lan (10.20.0.5)");
    expect(run.llm).toContain("allowing the host in the project does not help");
    expect(run.llm).toContain("TANDEM_INTERNAL_HOSTS");
    expect(run.llm).not.toContain("project settings (Network)");
    expect(run.meta?.deniedHosts).toEqual([]);
  });
});
