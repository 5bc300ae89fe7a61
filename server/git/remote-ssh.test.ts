import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSshKey, startGitSshServer, type GitSshServer } from "@/server/test/git-ssh-server";
import { testSandbox } from "@/server/test/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createSandbox } from "@/server/sandbox/sandbox";
import { cloneRepository, pushBranch, type HostKeys } from "./remote";
import { requireRemoteUrl } from "./remote-url";
import { gitRepository } from "./repository";
import type { GitSandbox } from "./run";
import type { KnownHostKey } from "./ssh-session";

const sandbox: GitSandbox = testSandbox("none");
const alice = generateSshKey("ed25519");
const bob = generateSshKey("rsa", "bob's passphrase");
const stranger = generateSshKey("ed25519");
let server: GitSshServer;
const dirs: string[] = [];
const workspace = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-git-ssh-ws-"));
  dirs.push(dir);
  return dir;
};
/** A project's accepted host keys, kept in memory as the database would keep them. */
const hostKeyStore = (initial: KnownHostKey[] = []) => {
  const keys = [...initial];
  const store: HostKeys & { keys: KnownHostKey[] } = {
    keys,
    known: async (host) => keys.filter((k) => k.host === host),
    accept: async (accepted) => void keys.push(...accepted),
  };
  return store;
};

beforeAll(async () => {
  server = await startGitSshServer({ authorizedKeys: [alice.publicKey, bob.publicKey] });
  server.createRepository("app", { "README.md": "# app\n", "src/index.ts": "export const x = 1;\n" });
});
afterAll(async () => {
  await server.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("git over ssh against a real ssh git server", () => {
  const remote = () => new URL(`ssh://git@127.0.0.1:${server.port}/app.git`);

  it("clones with an ed25519 key served by the operation's agent, and records the host key on first use", async () => {
    const root = await workspace();
    const hostKeys = hostKeyStore();
    await cloneRepository(sandbox, {
      projectId: "p1",
      root,
      remote: remote(),
      secret: { sshKey: { privateKey: alice.privateKey }, username: "git" },
      hostKeys,
    });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(server.logins.at(-1)).toMatchObject({ user: "git", accepted: true });
    expect(hostKeys.keys).toEqual([{ host: `[127.0.0.1]:${server.port}`, ...server.hostKey }]);
    // Nothing of the key is left in the repository.
    const config = await readFile(path.join(root, ".git/config"), "utf8");
    expect(config).not.toMatch(/PRIVATE KEY|sshCommand|tandem-git-ssh/);
    expect(config).toContain(`ssh://git@127.0.0.1:${server.port}/app.git`);
  });

  it("clones with a passphrase-protected rsa key", async () => {
    const root = await workspace();
    await cloneRepository(sandbox, {
      projectId: "p1",
      root,
      remote: remote(),
      secret: { sshKey: { privateKey: bob.privateKey, passphrase: "bob's passphrase" }, username: "git" },
      hostKeys: hostKeyStore(),
    });
    expect(await readFile(path.join(root, "README.md"), "utf8")).toBe("# app\n");
  });

  it("says authentication failed for a key the server does not know", async () => {
    const clone = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: remote(),
      secret: { sshKey: { privateKey: stranger.privateKey }, username: "git" },
      hostKeys: hostKeyStore(),
    });
    await expect(clone).rejects.toMatchObject({
      code: "AUTH_FAILED",
      message: expect.stringMatching(/^Authentication failed/),
    });
  });

  it("says the repository was not found", async () => {
    const missing = new URL(`ssh://git@127.0.0.1:${server.port}/missing.git`);
    const clone = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: missing,
      secret: { sshKey: { privateKey: alice.privateKey }, username: "git" },
      hostKeys: hostKeyStore(),
    });
    await expect(clone).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringMatching(/^Repository not found/),
    });
  });

  it("refuses a host whose key changed since the project first connected, before offering the key", async () => {
    const host = `[127.0.0.1]:${server.port}`;
    const impostor = generateSshKey("ed25519").publicKey.trim().split(/\s+/);
    const before = server.logins.length;
    const clone = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: remote(),
      secret: { sshKey: { privateKey: alice.privateKey }, username: "git" },
      hostKeys: hostKeyStore([{ host, keyType: impostor[0]!, key: impostor[1]! }]),
    });
    await expect(clone).rejects.toMatchObject({
      code: "HOST_KEY_CHANGED",
      message: expect.stringMatching(/ssh host key is not the one this project accepted/),
    });
    expect(server.logins.length).toBe(before);
  });

  it("never runs a core.sshCommand from the repository's config, and pushes a new branch as the person", async () => {
    const root = await workspace();
    const secret = { sshKey: { privateKey: alice.privateKey }, username: "git" };
    const hostKeys = hostKeyStore();
    await cloneRepository(sandbox, { projectId: "p1", root, remote: remote(), secret, hostKeys });
    const repo = gitRepository(sandbox, root);
    // The attacker's ssh command would leave a file behind if it ever ran.
    const marker = path.join(root, "pwned");
    await repo.createBranch("feature", true);
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["config", "core.sshCommand", `touch ${marker}; ssh`], { cwd: root });
    await writeFile(path.join(root, "README.md"), "# app\nmore\n");
    await repo.stage(["README.md"]);
    await repo.commit({ message: "Say more", author: { name: "Alice Example", email: "alice@example.com" } });
    await pushBranch(sandbox, { projectId: "p1", root, remote: remote(), secret, hostKeys, branch: "feature" });
    expect(server.git("app", ["log", "-1", "--format=%an <%ae> %s", "feature"]).trim()).toBe(
      "Alice Example <alice@example.com> Say more",
    );
    expect(await readdir(root)).not.toContain("pwned");
  });

  it("reads scp-like remotes (git@host:path) as ssh", async () => {
    const root = await workspace();
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["remote", "add", "origin", "git@github.com:owner/repo.git"], { cwd: root });
    const url = requireRemoteUrl((await gitRepository(sandbox, root).originUrl())!, "origin");
    expect([url.protocol, url.username, url.host, url.pathname]).toEqual([
      "ssh:",
      "git",
      "github.com",
      "/owner/repo.git",
    ]);
  });
});

describeSandboxed("git over ssh through the egress proxy", () => {
  const through = (allowHosts: string[]) =>
    createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: false, limits: null },
      policies: { get: async () => ({ policy: "allow-list", allowHosts }) },
      testHosts: new Map([["git.test", "127.0.0.1"]]),
    });
  const remote = () => new URL(`ssh://git@git.test:${server.port}/app.git`);

  it("clones in the sandbox through the proxy with the agent's key, and pushes", async () => {
    const root = await workspace();
    const secret = { sshKey: { privateKey: alice.privateKey }, username: "git" };
    const hostKeys = hostKeyStore();
    const git = through(["git.test"]);
    await cloneRepository(git, { projectId: "p1", root, remote: remote(), secret, hostKeys });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(hostKeys.keys.map((k) => k.host)).toEqual([`[git.test]:${server.port}`]);
    const repo = gitRepository(git, root);
    await repo.createBranch("sandboxed", true);
    await writeFile(path.join(root, "new.txt"), "hello\n");
    await repo.stage(["new.txt"]);
    await repo.commit({ message: "From the sandbox", author: { name: "Alice Example", email: "alice@example.com" } });
    await pushBranch(git, { projectId: "p1", root, remote: remote(), secret, hostKeys, branch: "sandboxed" });
    expect(server.git("app", ["show", "sandboxed:new.txt"])).toBe("hello\n");
  });

  it("says a host the policy does not allow is not allowed", async () => {
    const clone = cloneRepository(through(["example.org"]), {
      projectId: "p1",
      root: await workspace(),
      remote: remote(),
      secret: { sshKey: { privateKey: alice.privateKey }, username: "git" },
      hostKeys: hostKeyStore(),
    });
    await expect(clone).rejects.toMatchObject({
      code: "HOST_NOT_ALLOWED",
      message: expect.stringMatching(/git\.test is not allowed by the project's network policy/),
    });
  });
});
