import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { sandboxCommand, type SandboxMode, type SandboxOptions } from "./sandbox";

function run(options: Omit<SandboxOptions, "command">, script: string) {
  const cmd = sandboxCommand({ ...options, command: ["/bin/bash", "-c", script], newSession: true });
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(cmd.file, cmd.args, { env: cmd.env as NodeJS.ProcessEnv, cwd: cmd.cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let workspace: string;
const saved = { ...process.env };

beforeAll(() => {
  workspace = mkdtempSync(path.join(tmpdir(), "tandem-ws-"));
  process.env.DATABASE_URL = "postgres://user:hunter2@localhost/db";
  process.env.FOO_API_KEY = "sk-should-not-leak";
  process.env.BETTER_AUTH_SECRET = "auth-secret-should-not-leak";
});

afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  process.env = saved;
});

const modeSuite = (mode: SandboxMode) => () => {
  it("builds the environment from an allow-list", async () => {
    const { stdout, code } = await run(
      { mode, workspaceRoot: workspace, env: { LC_ALL: "C.UTF-8", GITHUB_TOKEN: "ghp_x", NODE_ENV: "test" } },
      "env",
    );
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/hunter2|sk-should-not-leak|auth-secret|ghp_x/);
    expect(stdout).not.toMatch(/DATABASE_URL|API_KEY|TOKEN|SECRET/);
    expect(stdout).toMatch(/^LC_ALL=C\.UTF-8$/m);
    expect(stdout).toMatch(/^NODE_ENV=test$/m);
    expect(stdout).toMatch(/^PATH=/m);
  });

  it("runs in the workspace and can write there", async () => {
    const { stdout, code } = await run({ mode, workspaceRoot: workspace }, "pwd; echo hi > note.txt");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(workspace);
    expect(readFileSync(path.join(workspace, "note.txt"), "utf8")).toBe("hi\n");
  });
};

describe("sandbox mode none", modeSuite("none"));
describeSandboxed("sandbox mode bwrap", modeSuite("bwrap"));

describeSandboxed("bwrap isolation", () => {
  it("cannot see or write outside the workspace", async () => {
    const serverCwd = process.cwd();
    const leak = path.join(serverCwd, "sandbox-leak.txt");
    const { stdout } = await run(
      { mode: "bwrap", workspaceRoot: workspace },
      [
        `test -e ${serverCwd}/package.json && echo SEES_SERVER_FILES`,
        "ls /root >/dev/null 2>&1 && echo SEES_ROOT",
        "test -e /etc/shadow && echo SEES_SHADOW",
        `echo x > ${leak} 2>/dev/null && echo WROTE_SERVER_CWD`,
        "echo x > /usr/leak 2>/dev/null && echo WROTE_USR",
        "echo x > /tmp/scratch && echo TMP_OK",
        "echo x > ~/scratch && echo HOME_OK",
        "id -un",
      ].join("; "),
    );
    expect(stdout).not.toMatch(/SEES_|WROTE_/);
    expect(stdout).toMatch(/TMP_OK/);
    expect(stdout).toMatch(/HOME_OK/);
    expect(stdout).toMatch(/^tandem$/m);
    expect(() => readFileSync(leak)).toThrow();
  });

  it("has no network unless allowed", async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.on("error", () => {});
      socket.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`;
    try {
      const denied = await run({ mode: "bwrap", workspaceRoot: workspace }, probe);
      expect(denied.stdout).not.toMatch(/CONNECTED/);
      expect(connections).toBe(0);
      const allowed = await run({ mode: "bwrap", workspaceRoot: workspace, allowNetwork: true }, probe);
      expect(allowed.stdout).toMatch(/CONNECTED/);
    } finally {
      server.close();
    }
  });
});
