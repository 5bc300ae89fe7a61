import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { bwrapAvailable } from "./launcher";
import { createSandbox, type LoggedConnection, type Sandbox } from "./sandbox";

// Real tools through the egress proxy from inside the sandbox: npm installing from a local
// registry (verdaccio, started here) and git cloning from a local git server (git's dumb HTTP
// protocol: a static server over a bare repository after `git update-server-info`).

const run = (file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(file, args, { ...options, encoding: "utf8", stdio: "pipe" });

describe.runIf(await bwrapAvailable())("package managers and git through the egress proxy", () => {
  let dir: string;
  let registry: http.Server;
  let registryPort: number;
  let gitServer: http.Server;
  let gitPort: number;
  let sandbox: Sandbox;
  const logged: LoggedConnection[] = [];
  const policy: NetworkPolicy = { policy: "allow-list", allowHosts: ["registry.test", "git.test"] };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tandem-egress-tools-"));
    // A registry that keeps what is published, with no uplink: nothing leaves the machine.
    const { runServer } = (await import("verdaccio")) as unknown as { runServer(config: object): Promise<http.Server> };
    registry = await runServer({
      self_path: dir,
      storage: path.join(dir, "storage"),
      auth: { htpasswd: { file: path.join(dir, "htpasswd"), max_users: 10 } },
      uplinks: {},
      packages: { "**": { access: "$all", publish: "$authenticated" } },
      logs: { type: "stdout", format: "pretty", level: "fatal" },
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    registryPort = (registry.address() as AddressInfo).port;
    const user = await fetch(`http://127.0.0.1:${registryPort}/-/user/org.couchdb.user:tester`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "tester", password: "tester-password" }),
    });
    const { token } = (await user.json()) as { token: string };
    const pkg = path.join(dir, "pkg");
    mkdirSync(pkg);
    writeFileSync(
      path.join(pkg, "package.json"),
      JSON.stringify({ name: "tandem-fixture", version: "1.0.0", main: "index.js" }),
    );
    writeFileSync(path.join(pkg, "index.js"), "module.exports = 'fixture works';\n");
    writeFileSync(path.join(pkg, ".npmrc"), `//127.0.0.1:${registryPort}/:_authToken=${token}\n`);
    // Not execFileSync: the registry answers from this very process.
    await new Promise<void>((resolve, reject) =>
      execFile(
        "npm",
        ["publish", "--registry", `http://127.0.0.1:${registryPort}/`],
        { cwd: pkg },
        (error, _out, stderr) => (error ? reject(new Error(stderr)) : resolve()),
      ),
    );

    // A bare repository served as static files.
    const source = path.join(dir, "source");
    mkdirSync(source);
    const git = (args: string[], cwd: string) =>
      run("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd });
    git(["init", "-q", "-b", "main"], source);
    writeFileSync(path.join(source, "README.md"), "cloned through the proxy\n");
    git(["add", "."], source);
    git(["commit", "-qm", "first"], source);
    git(["clone", "-q", "--bare", source, path.join(dir, "served", "repo.git")], dir);
    git(["update-server-info"], path.join(dir, "served", "repo.git"));
    const root = path.join(dir, "served");
    gitServer = http.createServer((req, res) => {
      const file = path.join(root, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
      if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => gitServer.listen(0, "127.0.0.1", resolve));
    gitPort = (gitServer.address() as AddressInfo).port;

    sandbox = createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: false, limits: null },
      policies: { get: async () => policy },
      testHosts: new Map([
        ["registry.test", "127.0.0.1"],
        ["git.test", "127.0.0.1"],
      ]),
      log: (c) => logged.push(c),
    });
  }, 120_000);

  afterAll(() => {
    registry?.close();
    gitServer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sh(workspace: string, script: string, onlyHosts?: string[]) {
    const launch = await sandbox.launch({
      workspaceRoot: workspace,
      command: ["/bin/bash", "-c", script],
      newSession: true,
      projectId: "p",
      source: { kind: "session", id: "s1" },
      onlyHosts,
    });
    const c = launch.command;
    const result = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd, timeout: 90_000 }, (e, stdout, stderr) =>
        resolve({ code: e ? 1 : 0, out: stdout + stderr }),
      ),
    );
    await launch.close();
    return result;
  }

  it("installs a package with npm from the local registry", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "tandem-npm-ws-"));
    writeFileSync(path.join(workspace, "package.json"), JSON.stringify({ name: "app", version: "1.0.0" }));
    const { code, out } = await sh(
      workspace,
      `npm install tandem-fixture --registry http://registry.test:${registryPort}/ --no-audit --no-fund && node -p "require('tandem-fixture')"`,
    );
    expect(out).toContain("fixture works");
    expect(code).toBe(0);
    expect(readFileSync(path.join(workspace, "node_modules", "tandem-fixture", "index.js"), "utf8")).toContain(
      "fixture works",
    );
    expect(logged.some((c) => c.host === "registry.test" && c.allowed && c.bytesIn > 0)).toBe(true);
    rmSync(workspace, { recursive: true, force: true });
  }, 120_000);

  it("clones with git from the local git server, also when narrowed to that one host", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "tandem-git-ws-"));
    const { code, out } = await sh(
      workspace,
      `git clone -q http://git.test:${gitPort}/repo.git && cat repo/README.md && curl -s -o /dev/null -w '%{http_code}\\n' http://registry.test:${registryPort}/`,
      ["git.test"],
    );
    expect(out).toContain("cloned through the proxy");
    expect(out).toMatch(/^403$/m);
    expect(code).toBe(0);
    rmSync(workspace, { recursive: true, force: true });
  }, 120_000);
});
