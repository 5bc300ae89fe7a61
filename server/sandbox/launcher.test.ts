import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canSwitchIdentity, projectIdentity } from "./identity";
import { DEFAULT_LIMITS } from "@/lib/sandbox-limits";
import { BACKGROUND_NICE } from "./limits";
import {
  bwrapAvailable,
  defaultSandboxHost,
  SandboxUnavailableError,
  sandboxCommand,
  type SandboxHost,
  type SandboxMode,
  type SandboxOptions,
} from "./launcher";

function run(host: SandboxHost, options: Omit<SandboxOptions, "command">, script: string) {
  const cmd = sandboxCommand(host, { ...options, command: ["/bin/bash", "-c", script], newSession: true });
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      cmd.file,
      cmd.args,
      { env: cmd.env as NodeJS.ProcessEnv, cwd: cmd.cwd, uid: cmd.uid, gid: cmd.gid, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const hasBwrap = await bwrapAvailable();
/** Unsandboxed, with an empty home: the host's ~/.bashrc stays out (bash reads it with a socket for stdin). */
const plain = (mode: SandboxMode): SandboxHost => ({ mode, masks: [], perProjectUid: false, limits: null, home });

let workspace: string;
let home: string;
const saved = { ...process.env };

beforeAll(() => {
  workspace = mkdtempSync(path.join(tmpdir(), "tandem-ws-"));
  home = mkdtempSync(path.join(tmpdir(), "tandem-home-"));
  process.env.DATABASE_URL = "postgres://user:hunter2@localhost/db";
  process.env.FOO_API_KEY = "sk-should-not-leak";
  process.env.BETTER_AUTH_SECRET = "auth-secret-should-not-leak";
});

afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
  process.env = saved;
});

describe("unsandboxed processes", () => {
  it("run in the home the host names, and an interactive shell reads that home's dotfiles", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "tandem-home-"));
    writeFileSync(path.join(home, ".bashrc"), "echo FROM_GIVEN_HOME\n");
    const { stdout, code } = await run(
      { ...plain("none"), home },
      { workspaceRoot: workspace },
      'bash -i -c "echo $HOME"',
    );
    expect(code).toBe(0);
    expect(stdout).toContain("FROM_GIVEN_HOME");
    expect(stdout).toContain(home);
    rmSync(home, { recursive: true, force: true });
  });

  it("take the server's $HOME when it runs with one, as any child process would", () => {
    const before = process.env.HOME;
    process.env.HOME = "/srv/tandem-home";
    try {
      const host = defaultSandboxHost("none", { dataDir: workspace });
      expect(sandboxCommand(host, { workspaceRoot: workspace, command: ["/bin/true"] }).env.HOME).toBe(
        "/srv/tandem-home",
      );
    } finally {
      process.env.HOME = before;
    }
  });
});

describe.each<SandboxMode>(["none", "bwrap"])("sandbox mode %s", (mode) => {
  it.runIf(mode === "none" || hasBwrap)("builds the environment from an allow-list", async () => {
    const { stdout, code } = await run(
      plain(mode),
      { workspaceRoot: workspace, env: { LC_ALL: "C.UTF-8", GITHUB_TOKEN: "ghp_x", NODE_ENV: "test" } },
      "env",
    );
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/hunter2|sk-should-not-leak|auth-secret|ghp_x/);
    expect(stdout).not.toMatch(/DATABASE_URL|API_KEY|TOKEN|SECRET/);
    expect(stdout).toMatch(/^LC_ALL=C\.UTF-8$/m);
    expect(stdout).toMatch(/^NODE_ENV=test$/m);
    expect(stdout).toMatch(/^PATH=/m);
  });

  it.runIf(mode === "none" || hasBwrap)("runs in the workspace and can write there", async () => {
    const { stdout, code } = await run(plain(mode), { workspaceRoot: workspace }, "pwd; echo hi > note.txt");
    expect(code).toBe(0);
    // Sandboxed, the workspace is at /workspace, whatever the server's data directory is.
    expect(stdout.trim()).toBe(mode === "bwrap" ? "/workspace" : workspace);
    expect(readFileSync(path.join(workspace, "note.txt"), "utf8")).toBe("hi\n");
  });

  it.runIf(mode === "none" || hasBwrap)(
    "git commits as the person it was given (a terminal's owner), unless the repository names its own",
    async () => {
      const folder = `identity-${mode}`;
      mkdirSync(path.join(workspace, folder), { recursive: true });
      const gitIdentity = { name: 'Ada "the" Lovelace', email: "ada@example.test" };
      const commit = (extra: string) =>
        run(
          plain(mode),
          { workspaceRoot: workspace, cwd: folder, gitIdentity },
          `git init -q 2>/dev/null; ${extra} git commit -q --allow-empty -m x && git log -1 --format='%an <%ae>|%cn'`,
        );
      const own = await commit("");
      expect(own.stderr).toBe("");
      expect(own.stdout).toBe(`Ada "the" Lovelace <ada@example.test>|Ada "the" Lovelace\n`);
      const repo = await commit("git config user.name 'Release Bot' && git config user.email bot@example.test &&");
      expect(repo.stdout).toBe("Release Bot <bot@example.test>|Release Bot\n");
    },
  );

  // Only a sandbox binds it there; without one, commands see the host path (the test above).
  if (mode === "bwrap")
    it.runIf(hasBwrap)(
      "shows the workspace at /workspace and at its host path, one folder, starting in the folder asked for",
      async () => {
        mkdirSync(path.join(workspace, "sub"), { recursive: true });
        const { stdout, code } = await run(
          plain(mode),
          { workspaceRoot: workspace, cwd: "sub" },
          `pwd; echo one > /workspace/a.txt; cat ${JSON.stringify(path.join(workspace, "a.txt"))}`,
        );
        expect(code).toBe(0);
        expect(stdout).toBe("/workspace/sub\none\n");
      },
    );

  it.runIf(mode === "none" || hasBwrap)(
    "runs background work at the background niceness, below the sandbox's own",
    async () => {
      const host: SandboxHost = { ...plain(mode), limits: mode === "bwrap" ? DEFAULT_LIMITS : null };
      const server = getPriority();
      const background = await run(host, { workspaceRoot: workspace, background: true }, "nice");
      expect(background.stdout).toBe(`${Math.min(19, server + BACKGROUND_NICE)}\n`);
      const foreground = await run(host, { workspaceRoot: workspace }, "nice");
      expect(foreground.stdout).toBe(`${Math.min(19, server + (mode === "bwrap" ? DEFAULT_LIMITS.nice : 0))}\n`);
    },
  );
});

describe("fail closed", () => {
  it("refuses to build a command when bubblewrap is absent, instead of running it unsandboxed", async () => {
    const host = { ...plain("bwrap"), bwrapPath: "/nonexistent/bwrap" };
    expect(() => sandboxCommand(host, { workspaceRoot: workspace, command: ["/bin/true"] })).toThrow(
      SandboxUnavailableError,
    );
    expect(await bwrapAvailable("/nonexistent/bwrap")).toBe(false);
  });

  it("refuses every launch when the server found bubblewrap not working", () => {
    const host = { ...plain("bwrap"), unavailable: "bubblewrap does not work here" };
    expect(() => sandboxCommand(host, { workspaceRoot: workspace, command: ["/bin/true"] })).toThrow(
      "bubblewrap does not work here",
    );
  });
});

describe.runIf(hasBwrap)("bwrap sandbox", () => {
  it("cannot see or write outside the workspace", async () => {
    const serverCwd = process.cwd();
    const leak = path.join(serverCwd, "sandbox-leak.txt");
    const host = defaultSandboxHost("bwrap", { dataDir: path.join(serverCwd, ".tandem") });
    const { stdout } = await run(
      host,
      { workspaceRoot: workspace },
      [
        `test -e ${serverCwd}/package.json && echo SEES_SERVER_FILES`,
        "ls -A /root 2>/dev/null | grep -q . && echo SEES_ROOT",
        // Only the empty mountpoint of the masked data directory may show there.
        `ls -A ${serverCwd} 2>/dev/null | grep -qv '^.tandem$' && echo SEES_SERVER_DIR`,
        "test -e /etc/shadow && echo SEES_SHADOW",
        "test -e /usr/src && echo SEES_USR_SRC",
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

  it("runs node and npm, which tools need", async () => {
    const { stdout, code } = await run(
      plain("bwrap"),
      { workspaceRoot: workspace },
      "node -e 'console.log(1 + 1)' && npm --version",
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^2\n\d+\.\d+\.\d+/);
  });

  it("hides the server's install and data directories even under a bound path", async () => {
    // Installed the container way, under /usr: /usr/local/lib is bound for the tools it holds.
    const install = mkdtempSync("/usr/local/lib/tandem-install-");
    try {
      writeFileSync(path.join(install, ".env"), "ANTHROPIC_API_KEY=sk-planted\n", { mode: 0o644 });
      mkdirSync(path.join(install, ".tandem"));
      writeFileSync(path.join(install, ".tandem", "auth-secret"), "planted-secret\n", { mode: 0o644 });
      const host = defaultSandboxHost("bwrap", { dataDir: path.join(install, ".tandem"), installDir: install });
      const { stdout } = await run(
        host,
        { workspaceRoot: workspace },
        `cat ${install}/.env ${install}/.tandem/auth-secret; ls -A ${install}; echo done`,
      );
      expect(stdout).not.toMatch(/sk-planted|planted-secret|\.env/);
      expect(stdout).toMatch(/done/);
    } finally {
      rmSync(install, { recursive: true, force: true });
    }
  });

  it("takes read-only binds at fixed paths", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tandem-bind-"));
    writeFileSync(path.join(dir, "pkg.txt"), "package\n");
    const { stdout } = await run(
      plain("bwrap"),
      { workspaceRoot: workspace, readOnlyBinds: [{ from: dir, to: "/opt/tandem-pkg" }] },
      "cat /opt/tandem-pkg/pkg.txt; echo x > /opt/tandem-pkg/w 2>/dev/null && echo WROTE",
    );
    expect(stdout).toBe("package\n");
    rmSync(dir, { recursive: true, force: true });
  });

  it("lowers the priority of the command, started after the network bridge handed over its listener", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tandem-nice-"));
    const egressSocket = path.join(dir, "egress.sock");
    // Takes the bridge's connection without reading it, as the egress listener does.
    const proxy = net.createServer({ pauseOnConnect: true }, () => {});
    await new Promise<void>((resolve) => proxy.listen(egressSocket, resolve));
    try {
      const host: SandboxHost = { ...plain("bwrap"), limits: DEFAULT_LIMITS };
      // Field 19 of /proc/<pid>/stat is the niceness; the bash's parent is bubblewrap's.
      const { stdout, code } = await run(
        host,
        { workspaceRoot: workspace, egressSocket },
        "nice; cut -d' ' -f19 /proc/$PPID/stat",
      );
      expect(code).toBe(0);
      const server = getPriority();
      expect(stdout.split("\n").slice(0, 2)).toEqual([
        String(Math.min(19, server + DEFAULT_LIMITS.nice)),
        String(server),
      ]);
    } finally {
      proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(canSwitchIdentity() && hasBwrap)("bwrap sandbox as the project's own host uid", () => {
  const host = (): SandboxHost => ({ ...plain("bwrap"), perProjectUid: true });
  let shared: string;
  let umask: number;

  beforeAll(() => {
    umask = process.umask(0o002);
    shared = mkdtempSync(path.join(tmpdir(), "tandem-shared-"));
    writeFileSync(path.join(shared, "existing.txt"), "saved before the first launch\n", { mode: 0o644 });
    mkdirSync(path.join(shared, "src"), { mode: 0o755 });
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(shared, { recursive: true, force: true });
  });

  it("hands an empty workspace over without putting anything in it (a clone needs it empty)", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "tandem-empty-"));
    try {
      const { code, stdout } = await run(host(), { workspaceRoot: empty }, "ls -A; touch made && echo ok");
      expect(code).toBe(0);
      expect(stdout.trim()).toBe("ok");
      expect(statSync(empty).gid).toBe(projectIdentity(empty).gid);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("runs as an unprivileged host uid, to which the server's files are other people's", async () => {
    // A mode-0600 file of the server's user under a bound path: visible, but not readable.
    const dir = mkdtempSync("/usr/local/lib/tandem-private-");
    const secret = path.join(dir, "credentials");
    writeFileSync(secret, "server secret\n");
    chmodSync(secret, 0o600);
    chmodSync(dir, 0o755);
    try {
      const { stdout } = await run(
        host(),
        { workspaceRoot: shared },
        `test -e ${secret} && echo VISIBLE; cat ${secret} 2>/dev/null || echo CANNOT_READ`,
      );
      expect(stdout).toMatch(/VISIBLE/);
      expect(stdout).toMatch(/CANNOT_READ/);
      expect(stdout).not.toMatch(/server secret/);
      // Without the identity switch (the server's own uid inside), the same file is readable.
      const asServer = await run(plain("bwrap"), { workspaceRoot: workspace }, `cat ${secret}`);
      expect(asServer.stdout).toBe("server secret\n");
      expect(projectIdentity(shared).uid).toBeGreaterThan(65535);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shares the workspace: what the server saves is editable inside, and what is made inside the server can edit", async () => {
    // The server saves files after the sandbox prepared the folder (editor save, checkpoint restore).
    await run(host(), { workspaceRoot: shared }, "true");
    writeFileSync(path.join(shared, "src", "saved-by-server.ts"), "export const a = 1;\n");
    const { stdout, code } = await run(
      host(),
      { workspaceRoot: shared },
      "echo '// edited in a terminal' >> src/saved-by-server.ts && echo '// too' >> existing.txt && mkdir -p made/inside && echo new > made/inside/file.txt && echo EDITED",
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/EDITED/);
    expect(readFileSync(path.join(shared, "src", "saved-by-server.ts"), "utf8")).toContain("edited in a terminal");
    // And back: the server (root) edits what the sandbox made; the sandbox then edits it again.
    writeFileSync(path.join(shared, "made", "inside", "file.txt"), "server edit\n");
    writeFileSync(path.join(shared, "made", "inside", "server-new.txt"), "new from server\n");
    const again = await run(
      host(),
      { workspaceRoot: shared },
      "echo more >> made/inside/file.txt && echo more >> made/inside/server-new.txt && echo AGAIN",
    );
    expect(again.stdout).toMatch(/AGAIN/);
    expect(readFileSync(path.join(shared, "made", "inside", "server-new.txt"), "utf8")).toBe("new from server\nmore\n");
    expect(statSync(path.join(shared, "made")).mode & 0o2000).toBe(0o2000);
  });
});
