import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createShellSession } from "@/server/workspace/shell-session";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createTestServices } from "@/server/test/services";
import { until } from "@/server/test/until";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";

// Project environments through the API, in the real sandbox as a root server runs it (a uid per
// project, the install and data folders masked): each project's Node is its own in a terminal
// and in the agent's shell; a setup script's work is there in the next terminal; a failed one
// shows as failed with its output; and a repository's planted `.tandem/setup.sh` gets no further
// than any other process of the project. Node comes from the real npm registry (CI reaches it),
// into a cache kept between runs so each version is downloaded once per machine.

const createCaller = createCallerFactory(appRouter);
const CACHE = path.join(tmpdir(), "tandem-test-toolchains");
let env: Awaited<ReturnType<typeof createTestServices>>;
let installDir: string;
let git: GitHttpServer;

beforeAll(async () => {
  installDir = mkdtempSync(path.join(tmpdir(), "tandem-env-install-"));
  writeFileSync(path.join(installDir, "server-secret.txt"), "the server's own file\n");
  env = await createTestServices({
    sandbox: "bwrap",
    installDir,
    toolchainCache: CACHE,
    egressTestHosts: new Map([["git.test", "127.0.0.1"]]),
  });
  git = await startGitHttpServer({ tokens: {} });
  writeFileSync(path.join(env.dataDir, "server-data.txt"), "the server's data\n");
}, 60_000);
afterAll(async () => {
  await git?.close();
  await env?.dispose();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `command` in a new terminal of the project and returns what it printed up to `done`. */
async function inTerminal(projectId: string, command: string, done: RegExp): Promise<string> {
  const root = env.services.files.pathOf(projectId);
  const info = await env.services.terminals.create(projectId, root, { cols: 200, rows: 50 });
  const terminal = env.services.terminals.get(projectId, info.id)!;
  let output = "";
  terminal.attach({ output: (frame) => (output += frame.toString("utf8")), message: () => {}, close: () => {} });
  try {
    terminal.write(`${command}\r`);
    for (let waited = 0; !done.test(output); waited += 50) {
      if (waited > 60_000) throw new Error(`timed out on ${command}: ${JSON.stringify(output.slice(-600))}`);
      await sleep(50);
    }
    return output.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");
  } finally {
    env.services.terminals.close(projectId, info.id);
  }
}

async function inAgentShell(projectId: string, command: string) {
  const workspace = await env.services.files.open(projectId);
  const shell = createShellSession({
    workspace,
    projectId,
    sessionId: `s-${Date.now()}`,
    sandbox: env.services.sandbox,
  });
  try {
    return await shell.run(command, { timeoutMs: 60_000, signal: new AbortController().signal });
  } finally {
    await shell.dispose();
  }
}

async function settled(caller: ReturnType<typeof createCaller>, projectId: string) {
  await env.services.environment.setup.settled(projectId);
  const status = await caller.environment.get({ projectId });
  if (status.run?.status === "running") throw new Error("the setup still runs");
  return status;
}

describeSandboxed("project environments", () => {
  it("gives two projects their own Node, in a terminal and in the agent's shell", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const a = await caller.project.create({ name: "On 22" });
    const b = await caller.project.create({ name: "On 20" });
    await caller.environment.save({ projectId: a.id, setupScript: null, node: "22.12.0", python: null });
    // B names its version the way a repository does; the settings would win over it.
    writeFileSync(path.join(env.services.files.pathOf(b.id), ".nvmrc"), "v20.18.1\n");
    const [stateA, stateB] = await Promise.all([
      caller.environment.get({ projectId: a.id }),
      caller.environment.get({ projectId: b.id }),
    ]);
    expect(stateA.toolchains).toEqual([
      { name: "node", spec: "22.12.0", from: "settings", version: "22.12.0", problem: null },
    ]);
    expect(stateB.toolchains).toEqual([
      { name: "node", spec: "20.18.1", from: ".nvmrc", version: "20.18.1", problem: null },
    ]);
    expect(await inTerminal(a.id, "node -v; npm -v; echo END", /\nEND\r?\n/)).toMatch(/v22\.12\.0\r?\n\d+\.\d+\.\d+/);
    expect(await inTerminal(b.id, "node -v; echo END", /\nEND\r?\n/)).toMatch(/v20\.18\.1/);
    expect((await inAgentShell(a.id, "node -v")).stdout.trim()).toBe("v22.12.0");
    expect((await inAgentShell(b.id, "node -v")).stdout.trim()).toBe("v20.18.1");
    // The cache is read-only to the project, at its mount and at its host path alike.
    const tamper = await inAgentShell(
      a.id,
      `touch /opt/tandem/toolchains/node/bin/evil; echo x >> /opt/tandem/toolchains/node/bin/node; ls ${CACHE} 2>&1; echo done`,
    );
    expect(tamper.stderr).toMatch(/Read-only file system/);
    expect(tamper.stdout).toMatch(/No such file or directory/);
    expect(existsSync(path.join(CACHE, "node", "22.12.0", "bin", "evil"))).toBe(false);
  }, 300_000);

  it("after a clone, installs the repository's Node and runs its .tandem/setup.sh with it", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    git.createRepository("app", {
      ".nvmrc": "22.12.0\n",
      ".tandem/setup.sh": "echo cloned and set up\nnode -v > node-version.txt\n",
    });
    git.makePublic("app");
    const project = await caller.project.create({
      name: "Cloned",
      gitUrl: `${git.url.replace("127.0.0.1", "git.test")}/app.git`,
    });
    const { run, toolchains } = await settled(caller, project.id);
    expect(run).toMatchObject({ status: "succeeded", source: "repository", trigger: "clone" });
    expect(run?.output).toContain("[tandem] node 22.12.0 (from .nvmrc) is first on the PATH");
    expect(run?.output).toContain("cloned and set up");
    expect(toolchains).toMatchObject([{ name: "node", version: "22.12.0", from: ".nvmrc" }]);
    const workspace = await env.services.files.open(project.id);
    expect((await workspace.readBytes("node-version.txt")).toString()).toBe("v22.12.0\n");
  }, 300_000);

  it("puts a version set mid-session first in the agent's shell, over the PATH an earlier command saved", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Later" });
    const workspace = await env.services.files.open(project.id);
    const shell = createShellSession({
      workspace,
      projectId: project.id,
      sessionId: "later",
      sandbox: env.services.sandbox,
    });
    const run = (command: string) => shell.run(command, { timeoutMs: 60_000, signal: new AbortController().signal });
    try {
      // The host's node, whichever it is, before the project names one.
      expect((await run('export PATH="$PWD/bin:$PATH"; node -v')).stdout.trim()).not.toBe("v22.12.0");
      await caller.environment.save({ projectId: project.id, setupScript: null, node: "22.12.0", python: null });
      expect((await run("node -v; echo $PATH")).stdout).toMatch(/^v22\.12\.0\n.*\/workspace\/bin/);
    } finally {
      await shell.dispose();
    }
  }, 300_000);

  it("runs the setup script in the sandbox: its work is in the next terminal, a failure shows with its output, and one runs at a time", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Setup" });
    const projectId = project.id;
    await expect(caller.environment.rebuild({ projectId })).rejects.toThrow(/no setup script/);
    await caller.environment.save({
      projectId,
      setupScript:
        "echo installing; sleep 1; mkdir -p tools; printf '#!/bin/sh\\necho hello from setup\\n' > tools/hello; chmod +x tools/hello",
      node: null,
      python: null,
    });
    const events: string[] = [];
    const controller = new AbortController();
    const watcher = createCaller(env.context(owner), { signal: controller.signal });
    const stream = (await watcher.environment.output({ projectId })) as AsyncIterable<{
      kind: string;
      text?: string;
    }>;
    const reading = (async () => {
      for await (const event of stream) {
        events.push(event.kind === "output" ? `output:${event.text}` : event.kind);
        if (event.kind === "ended") break;
      }
    })();
    const started = await caller.environment.rebuild({ projectId });
    expect(started).toMatchObject({ status: "running", source: "settings", trigger: "rebuild" });
    await expect(caller.environment.rebuild({ projectId })).rejects.toThrow(/being set up already/);
    await reading;
    controller.abort();
    expect(events[0]).toBe("snapshot");
    expect(events.join("")).toContain("installing");
    const ok = await settled(caller, projectId);
    expect(ok.run).toMatchObject({ status: "succeeded", exitCode: 0 });
    expect(await inTerminal(projectId, "./tools/hello; echo END", /\nEND\r?\n/)).toContain("hello from setup");

    await caller.environment.save({ projectId, setupScript: "echo about to fail; exit 3", node: null, python: null });
    await caller.environment.rebuild({ projectId });
    const failed = await settled(caller, projectId);
    expect(failed.run).toMatchObject({ status: "failed", exitCode: 3 });
    expect(failed.run?.output).toContain("about to fail");
    // The agent is told.
    const facts = await env.services.environment.facts(projectId);
    expect(facts.setup).toMatchObject({ status: "failed", exitCode: 3 });
  }, 120_000);

  it("runs a repository's planted .tandem/setup.sh as the project, with nothing more", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Planted" });
    const root = env.services.files.pathOf(project.id);
    mkdirSync(path.join(root, ".tandem"), { recursive: true });
    // What a hostile repository tries: the host's files, the server's install and data folders,
    // a file beside the workspace, the toolchain cache, and any credential in its environment.
    const outside = path.join(path.dirname(root), "planted-outside.txt");
    writeFileSync(
      path.join(root, ".tandem", "setup.sh"),
      [
        "set +e",
        "echo pwned > /etc/pwned 2>/dev/null && echo WROTE-ETC",
        `echo pwned > ${outside} 2>/dev/null && echo WROTE-BESIDE`,
        `cat ${path.join(installDir, "server-secret.txt")} 2>/dev/null && echo READ-INSTALL`,
        `cat ${path.join(env.dataDir, "server-data.txt")} 2>/dev/null && echo READ-DATA`,
        "touch /opt/tandem/toolchains/x 2>/dev/null && echo WROTE-CACHE",
        "env | grep -iE 'secret|token|password|database_url|git_config_global' && echo HAS-CREDENTIALS",
        "git config --global user.email && echo HAS-IDENTITY",
        "id -u",
        "echo planted ran",
        "",
      ].join("\n"),
    );
    const { run } = await (async () => {
      await caller.environment.rebuild({ projectId: project.id });
      return settled(caller, project.id);
    })();
    expect(run).toMatchObject({ status: "succeeded", source: "repository" });
    expect(run?.output).toContain("planted ran");
    expect(run?.output).not.toMatch(/WROTE-|READ-INSTALL|READ-DATA|HAS-CREDENTIALS|HAS-IDENTITY/);
    expect(run?.output).not.toMatch(/^0$/m);
    expect(existsSync("/etc/pwned")).toBe(false);
    expect(existsSync(outside)).toBe(false);

    // The settings' script wins over the repository's.
    await caller.environment.save({
      projectId: project.id,
      setupScript: "echo from settings",
      node: null,
      python: null,
    });
    await caller.environment.rebuild({ projectId: project.id });
    const settingsRun = (await settled(caller, project.id)).run;
    expect(settingsRun).toMatchObject({ status: "succeeded", source: "settings" });
    expect(settingsRun?.output).toContain("from settings");
    expect(settingsRun?.output).not.toContain("planted ran");
  }, 120_000);

  it("reads no setup script or version file through a link out of the workspace", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Linked" });
    const root = env.services.files.pathOf(project.id);
    mkdirSync(path.join(root, ".tandem"), { recursive: true });
    const secret = path.join(installDir, "server-secret.txt");
    symlinkSync(secret, path.join(root, ".tandem", "setup.sh"));
    symlinkSync(secret, path.join(root, ".nvmrc"));
    const status = await caller.environment.get({ projectId: project.id });
    expect(status.repositoryScript).toBe(false);
    expect(status.toolchains).toEqual([]);
    await expect(caller.environment.rebuild({ projectId: project.id })).rejects.toThrow(/no setup script/);
    await until(async () => (await caller.environment.get({ projectId: project.id })).run === null, "no run", 1000);
  });
});
