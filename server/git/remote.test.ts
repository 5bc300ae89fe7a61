import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { testSandbox } from "@/server/test/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createSandbox } from "@/server/sandbox/sandbox";
import { cloneRepository, pushBranch, runRemoteGit } from "./remote";
import { gitRepository } from "./repository";
import type { GitSandbox } from "./run";

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
    await cloneRepository(sandbox, { projectId: "p1", root, remote: new URL(`${server.url}/app.git`), secret: { username: "alice", password: "token-alice" }, onProgress: (p) => phases.push(p.phase) });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(phases.length).toBeGreaterThan(0);
    expect(server.requests.some((r) => r.user === "alice")).toBe(true);
    // Nothing of the secret is left in the repository's files.
    const config = await readFile(path.join(root, ".git/config"), "utf8");
    expect(config).not.toContain("token-alice");
    expect(config).not.toContain("alice@");
  });

  it("says authentication failed for a wrong token, and when no token is given", async () => {
    const wrong = cloneRepository(sandbox, { projectId: "p1", root: await workspace(), remote: new URL(`${server.url}/app.git`), secret: { username: "alice", password: "nope" } });
    await expect(wrong).rejects.toMatchObject({ code: "AUTH_FAILED", message: expect.stringMatching(/Authentication failed/) });
    const none = cloneRepository(sandbox, { projectId: "p1", root: await workspace(), remote: new URL(`${server.url}/app.git`), secret: null });
    await expect(none).rejects.toMatchObject({ code: "AUTH_FAILED" });
  });

  it("says the repository was not found", async () => {
    const missing = cloneRepository(sandbox, { projectId: "p1", root: await workspace(), remote: new URL(`${server.url}/missing.git`), secret: { username: "alice", password: "token-alice" } });
    await expect(missing).rejects.toMatchObject({ code: "NOT_FOUND", message: expect.stringMatching(/Repository not found/) });
  });

  it("gives the secret only to a request for the remote's own host", async () => {
    // git asks about another host than the operation's remote (as an insteadOf rule in a
    // repository's config would make it): the socket answers nothing, and the server sees no login.
    const before = server.requests.filter((r) => r.user === "alice").length;
    const elsewhere = `${server.url}/app.git`.replace("127.0.0.1", "localhost");
    const clone = runRemoteGit(sandbox, ["clone", "--", elsewhere, "."], { projectId: "p1", root: await workspace(), remote: new URL(`${server.url}/app.git`), secret: { username: "alice", password: "token-alice" } });
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
    await pushBranch(sandbox, { projectId: "p1", root, remote: new URL(`${server.url}/app.git`), secret, branch: "feature" });
    expect(server.git("app", ["log", "-1", "--format=%an <%ae> %s", "feature"]).trim()).toBe("Alice Example <alice@example.com> Say more");
    expect((await repo.status()).upstream).toBe("origin/feature");
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
    await cloneRepository(through(["git.test"]), { projectId: "p1", root, remote: remote(), secret: { username: "alice", password: "token-alice" } });
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toBe("export const x = 1;\n");
    const denied = cloneRepository(through(["example.org"]), { projectId: "p1", root: await workspace(), remote: remote(), secret: null });
    await expect(denied).rejects.toMatchObject({ code: "HOST_NOT_ALLOWED", message: expect.stringMatching(/git\.test is not allowed by the project's network policy/) });
  });
});
