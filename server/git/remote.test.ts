import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { testSandbox } from "@/server/test/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createSandbox } from "@/server/sandbox/sandbox";
import { cloneRepository, fetchRemote, pushBranch } from "./remote";
import { gitRepository } from "./repository";
import { runGit, text, type GitSandbox } from "./run";

// Unsandboxed: these prove the credential socket and the error wording; the route through the
// egress proxy is proven in server/sandbox (git clone through the proxy).
const sandbox: GitSandbox = testSandbox("none");
let server: GitHttpServer;
const dirs: string[] = [];
const workspace = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-git-ws-"));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  server = await startGitHttpServer({ tokens: { "token-alice": "alice" } });
  server.createRepository("app", { "README.md": "# app\n", "src/index.ts": "export const x = 1;\n" });
});
afterAll(async () => {
  await server.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("git against a real smart-HTTP server, in the sandbox", () => {
  it("clones with a token handed over the one-shot credential socket, with progress", async () => {
    const root = await workspace();
    const phases: string[] = [];
    await cloneRepository(sandbox, {
      projectId: "p1",
      root,
      remote: new URL(`${server.url}/app.git`),
      secret: { username: "alice", password: "token-alice" },
      onProgress: (p) => phases.push(p.phase),
    });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(phases.length).toBeGreaterThan(0);
    expect(server.requests.some((r) => r.user === "alice")).toBe(true);
    // Nothing of the secret is left in the repository's files.
    const config = await readFile(path.join(root, ".git/config"), "utf8");
    expect(config).not.toContain("token-alice");
    expect(config).not.toContain("alice@");
  });

  it("says authentication failed for a wrong token, and when no token is given", async () => {
    const wrong = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: new URL(`${server.url}/app.git`),
      secret: { username: "alice", password: "nope" },
    });
    await expect(wrong).rejects.toMatchObject({
      code: "AUTH_FAILED",
      message: expect.stringMatching(/Authentication failed/),
    });
    const none = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: new URL(`${server.url}/app.git`),
      secret: null,
    });
    await expect(none).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("says the repository was not found", async () => {
    const missing = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: new URL(`${server.url}/missing.git`),
      secret: { username: "alice", password: "token-alice" },
    });
    await expect(missing).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringMatching(/Repository not found/),
    });
  });

  it("gives the secret only to a request for the remote's own host", async () => {
    // git asks about another host than the operation's remote (as an insteadOf rule in a
    // repository's config would make it): the socket answers nothing, and the server sees no login.
    const before = server.requests.filter((r) => r.user === "alice").length;
    const elsewhere = `${server.url}/app.git`.replace("127.0.0.1", "localhost");
    const clone = cloneRepository(sandbox, {
      projectId: "p1",
      root: await workspace(),
      remote: new URL(`${server.url}/app.git`),
      url: elsewhere,
      secret: { username: "alice", password: "token-alice" },
    });
    await expect(clone).rejects.toMatchObject({ code: "AUTH_FAILED" });
    expect(server.requests.filter((r) => r.user === "alice").length).toBe(before);
  });

  it("commits as the person and pushes a new branch, setting its upstream", async () => {
    const root = await workspace();
    const secret = { username: "alice", password: "token-alice" };
    await cloneRepository(sandbox, { projectId: "p1", root, remote: new URL(`${server.url}/app.git`), secret });
    const repo = gitRepository(sandbox, root);
    await repo.createBranch("feature", true);
    await import("node:fs/promises").then((fs) => fs.writeFile(path.join(root, "README.md"), "# app\nmore\n"));
    await repo.stage(["README.md"]);
    await repo.commit({ message: "Say more", author: { name: "Alice Example", email: "alice@example.com" } });
    await pushBranch(sandbox, {
      projectId: "p1",
      root,
      remote: new URL(`${server.url}/app.git`),
      secret,
      branch: "feature",
    });
    expect(server.git("app", ["log", "-1", "--format=%an <%ae> %s", "feature"]).trim()).toBe(
      "Alice Example <alice@example.com> Say more",
    );
    expect((await repo.status()).upstream).toBe("origin/feature");
  });
});

describe("clone and fetch detached from the repository's config", () => {
  it("clones a branch, a tag, one branch shallowly, and an empty repository", async () => {
    const secret = { username: "alice", password: "token-alice" };
    server.createRepository("refs", { "a.txt": "1\n" });
    server.git("refs", ["branch", "topic"]);
    server.git("refs", ["tag", "v1"]);
    server.commitElsewhere("refs", { "a.txt": "2\n" }, "Second");
    const remote = new URL(`${server.url}/refs.git`);
    const cloned = async (extra: { branch?: string; depth?: number }) => {
      const root = await workspace();
      await cloneRepository(sandbox, { projectId: "p1", root, remote, secret, ...extra });
      const repo = gitRepository(sandbox, root);
      return {
        repo,
        status: await repo.status(),
        text: await readFile(path.join(root, "a.txt"), "utf8").catch(() => null),
        branches: (await repo.branches()).map((b) => b.name).sort(),
      };
    };
    expect(await cloned({})).toMatchObject({
      status: { branch: "main", upstream: "origin/main" },
      text: "2\n",
      branches: ["main", "origin/main", "origin/topic"],
    });
    expect(await cloned({ branch: "topic" })).toMatchObject({
      status: { branch: "topic", upstream: "origin/topic" },
      text: "1\n",
    });
    expect(await cloned({ branch: "v1" })).toMatchObject({ status: { branch: null }, text: "1\n" });
    const shallow = await cloned({ depth: 1 });
    expect(shallow).toMatchObject({
      status: { branch: "main", upstream: "origin/main" },
      text: "2\n",
      branches: ["main", "origin/main"],
    });
    expect((await shallow.repo.log(10)).map((c) => c.subject)).toEqual(["Second"]);
    await expect(cloned({ branch: "nope" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "The remote has no branch or tag 'nope'.",
    });
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q", "--bare", path.join(server.root, "empty.git")]);
    const empty = await workspace();
    await cloneRepository(sandbox, {
      projectId: "p1",
      root: empty,
      remote: new URL(`${server.url}/empty.git`),
      secret,
    });
    expect(await gitRepository(sandbox, empty).isRepository()).toBe(true);
  });

  it("a writer's config slipped into the new repository during a clone runs nothing while the token is reachable", async () => {
    // A public repository: git never asks for the token, so a filter could ask the socket for it.
    server.createRepository("open", { "a.txt": "public\n" });
    server.makePublic("open");
    const root = await workspace();
    const { execFileSync } = await import("node:child_process");
    const plainGit = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: root,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    plainGit("init", "-q");
    const steal = `printf 'protocol=http\\nhost=${new URL(server.url).host}\\n\\n' | git credential fill >> "${root}/stolen" 2>&1; cat`;
    plainGit("config", "filter.evil.smudge", steal);
    plainGit("config", "filter.evil.required", "true");
    plainGit("config", "protocol.ext.allow", "always");
    plainGit("config", `url.ext::sh -c touch% ${root}/ext-ran.insteadOf`, `${server.url}/open.git`);
    await writeFile(path.join(root, ".git/info/attributes"), "* filter=evil\n");
    await cloneRepository(sandbox, {
      projectId: "p1",
      root,
      remote: new URL(`${server.url}/open.git`),
      secret: { username: "alice", password: "token-alice" },
    });
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("public\n");
    expect(await readFile(path.join(root, "stolen"), "utf8")).not.toContain("token-alice");
    expect(await readdir(root)).not.toContain("ext-ran");
  });

  it("brings a shallow clone's new commits, branches and tags into origin/* and prunes gone branches", async () => {
    const root = await workspace();
    const secret = { username: "alice", password: "token-alice" };
    server.createRepository("moving", { "a.txt": "1\n" });
    const remote = new URL(`${server.url}/moving.git`);
    await cloneRepository(sandbox, { projectId: "p1", root, remote, secret, depth: 1 });
    server.commitElsewhere("moving", { "a.txt": "2\n" }, "Second");
    server.git("moving", ["branch", "topic"]);
    server.git("moving", ["tag", "v1"]);
    await fetchRemote(sandbox, { projectId: "p1", root, remote, secret });
    const repo = gitRepository(sandbox, root);
    const git = async (args: string[]) => text(await runGit(sandbox, args, { root })).trim();
    expect(await git(["rev-parse", "origin/main"])).toBe(server.git("moving", ["rev-parse", "main"]).trim());
    expect(
      (await repo.branches())
        .filter((b) => b.remote)
        .map((b) => b.name)
        .sort(),
    ).toEqual(["origin/main", "origin/topic"]);
    expect(await git(["rev-parse", "v1^{commit}"])).toBe(server.git("moving", ["rev-parse", "main"]).trim());
    server.git("moving", ["branch", "-D", "topic"]);
    await fetchRemote(sandbox, { projectId: "p1", root, remote, secret });
    expect((await repo.branches()).filter((b) => b.remote).map((b) => b.name)).toEqual(["origin/main"]);
  });
});

describeSandboxed("git through the egress proxy", () => {
  // The project's policy decides: the remote's host reached by its (test) name through the proxy
  // when the policy allows it, refused with words when it does not.
  const through = (allowHosts: string[]) =>
    createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: false, limits: null },
      policies: { get: async () => ({ policy: "allow-list", allowHosts }) },
      testHosts: new Map([["git.test", "127.0.0.1"]]),
    });
  const remote = () => new URL(`${server.url.replace("127.0.0.1", "git.test")}/app.git`);

  it("clones from an allowed host, and says a denied host is not allowed by the policy", async () => {
    const root = await workspace();
    await cloneRepository(through(["git.test"]), {
      projectId: "p1",
      root,
      remote: remote(),
      secret: { username: "alice", password: "token-alice" },
    });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    const denied = cloneRepository(through(["example.org"]), {
      projectId: "p1",
      root: await workspace(),
      remote: remote(),
      secret: null,
    });
    await expect(denied).rejects.toMatchObject({
      code: "HOST_NOT_ALLOWED",
      message: expect.stringMatching(/git\.test is not allowed by the project's network policy/),
    });
  });
});
