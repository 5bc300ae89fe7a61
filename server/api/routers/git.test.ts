import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findProject } from "@/server/db/repositories/projects";
import { listEvents } from "@/server/db/repositories/session-events";
import { createSession } from "@/server/db/repositories/sessions";
import { parseForges } from "@/lib/git-forges";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { createTestServices } from "@/server/test/services";
import type { GitOperationEvent } from "@/lib/git-schemas";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let server: GitHttpServer;
let user: Awaited<ReturnType<typeof env.createUser>>;
let caller: ReturnType<typeof createCaller>;

beforeAll(async () => {
  env = await createTestServices();
  server = await startGitHttpServer({ tokens: { ghp_secret_token_123: "alice" } });
  server.createRepository("app", { "README.md": "# app\n", "src/main.ts": "console.log(1);\n" });
  user = await env.createUser();
  caller = createCaller(env.context(user));
  // Every test clones from the forge with this person's token, so each runs alone as well as after the others.
  await caller.gitCredential.add({
    name: "Local forge",
    host: host(),
    username: "alice",
    token: "ghp_secret_token_123",
  });
});
afterAll(async () => {
  await server.close();
  await env.dispose();
});

const host = () => new URL(server.url).host;

describe("projects from git, with stored credentials", () => {
  it("stores a token sealed, lists it by name and host only, and clones with it, streaming progress", async () => {
    const alice = await env.createUser();
    const aliceCaller = createCaller(env.context(alice));
    await aliceCaller.gitCredential.add({
      name: "Local forge",
      host: host(),
      username: "alice",
      token: "ghp_secret_token_123",
    });
    const listed = await aliceCaller.gitCredential.list();
    expect(listed).toEqual([expect.objectContaining({ name: "Local forge", host: host(), username: "alice" })]);
    expect(JSON.stringify(listed)).not.toContain("ghp_secret_token_123");
    const row = await env.services.db.gitCredential.findFirstOrThrow({ where: { userId: alice.id } });
    expect(Buffer.from(row.secret).toString("latin1")).not.toContain("ghp_secret_token_123");

    const operationId = randomUUID();
    const events: GitOperationEvent[] = [];
    const watching = (async () => {
      for await (const event of await aliceCaller.git.operation({ operationId })) events.push(event);
    })();
    const project = await aliceCaller.project.create({ name: "Cloned", gitUrl: `${server.url}/app.git`, operationId });
    await watching;
    expect(await readFile(path.join(env.services.files.pathOf(project.id), "src/main.ts"), "utf8")).toBe(
      "console.log(1);\n",
    );
    expect(events.at(-1)).toEqual({ kind: "done" });
    expect(events.some((e) => e.kind === "progress")).toBe(true);

    const status = await aliceCaller.git.status({ projectId: project.id });
    expect(status).toMatchObject({ repository: true, branch: "main", upstream: "origin/main", ahead: 0, behind: 0 });
  });

  it("says what went wrong and leaves no project behind: missing repository, wrong token", async () => {
    const before = await caller.project.list();
    await expect(caller.project.create({ name: "Missing", gitUrl: `${server.url}/nope.git` })).rejects.toMatchObject({
      message: expect.stringMatching(/^Repository not found/),
    });
    const other = await env.createUser();
    const otherCaller = createCaller(env.context(other));
    await otherCaller.gitCredential.add({ name: "Wrong", host: host(), username: "alice", token: "wrong" });
    await expect(otherCaller.project.create({ name: "Denied", gitUrl: `${server.url}/app.git` })).rejects.toMatchObject(
      { message: expect.stringMatching(/^Authentication failed/) },
    );
    expect((await caller.project.list()).length).toBe(before.length);
    expect(await otherCaller.project.list()).toEqual([]);
    const folders = await import("node:fs/promises").then((fs) =>
      fs.readdir(path.join(env.dataDir, "workspaces")).catch(() => []),
    );
    for (const id of folders) expect(await findProject(env.services.db, id)).not.toBeNull();
  });

  it("clones a team project with the team's shared token, and refuses that token to anyone cloning outside the team", async () => {
    const admin = createCaller(env.context(await env.createUser()));
    const { id: teamId } = await admin.team.create({ name: "Forge team" });
    const shared = await admin.gitCredential.teamAdd({
      teamId,
      name: "Team forge",
      host: host(),
      username: "alice",
      token: "ghp_secret_token_123",
    });
    const project = await admin.project.create({
      name: "Team clone",
      teamId,
      gitUrl: `${server.url}/app.git`,
      credentialId: shared.id,
    });
    expect(await readFile(path.join(env.services.files.pathOf(project.id), "README.md"), "utf8")).toBe("# app\n");

    // An attacker who learned the id, in a team of their own and in their personal team.
    const attacker = createCaller(env.context(await env.createUser()));
    const { id: attackerTeam } = await attacker.team.create({ name: "Elsewhere" });
    const sent = server.requests.length;
    for (const target of [{ teamId: attackerTeam }, {}]) {
      await expect(
        attacker.project.create({
          name: "Stolen",
          ...target,
          gitUrl: `${server.url}/app.git`,
          credentialId: shared.id,
        }),
      ).rejects.toMatchObject({ message: "No such credential, or you may not use it." });
    }
    // Nor into the team itself without being in it.
    await expect(
      attacker.project.create({ name: "Stolen", teamId, gitUrl: `${server.url}/app.git`, credentialId: shared.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(attacker.gitCredential.teamList({ teamId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // A member of the team may use its credential in the team's projects only, not in their own.
    const member = await env.createUser();
    const invite = await admin.team.createInvite({ teamId, role: "member" });
    await createCaller(env.context(member)).team.acceptInvite({ token: invite.path.slice(6) });
    await expect(
      createCaller(env.context(member)).project.create({
        name: "Taken home",
        gitUrl: `${server.url}/app.git`,
        credentialId: shared.id,
      }),
    ).rejects.toMatchObject({
      message: "No such credential, or you may not use it.",
    });
    expect(server.requests.slice(sent).filter((r) => r.user !== null)).toEqual([]);
    expect(await attacker.project.list()).toEqual([]);
    expect(await createCaller(env.context(member)).project.list()).toEqual([
      expect.objectContaining({ id: project.id }),
    ]);
  });

  it("cancels a clone in progress and leaves nothing behind", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`src/f${i}.txt`] = `file ${i}\n${"x".repeat(i % 500)}\n`;
    server.createRepository("big", files);
    const before = (await caller.project.list()).length;
    const operationId = randomUUID();
    const events = await caller.git.operation({ operationId });
    const creating = caller.project.create({ name: "Cancelled", gitUrl: `${server.url}/big.git`, operationId });
    for await (const event of events) {
      if (event.kind === "progress") {
        expect((await caller.git.cancel({ operationId })).cancelled).toBe(true);
        break;
      }
    }
    await expect(creating).rejects.toMatchObject({ message: "The git operation was cancelled." });
    expect((await caller.project.list()).length).toBe(before);
  }, 120_000);

  it("commits as the person, stages one hunk of two, and pushes with the stored token", async () => {
    const project = await caller.project.create({ name: "Work", gitUrl: `${server.url}/app.git` });
    const root = env.services.files.pathOf(project.id);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    await writeFile(path.join(root, "list.txt"), `${lines.join("\n")}\n`);
    await caller.git.stage({ projectId: project.id, paths: ["list.txt"] });
    await caller.git.commit({ projectId: project.id, message: "Add list" });
    lines[1] = "line one changed";
    lines[28] = "line twenty-eight changed";
    await writeFile(path.join(root, "list.txt"), `${lines.join("\n")}\n`);
    const diff = await caller.git.diff({ projectId: project.id, path: "list.txt", side: "worktree" });
    expect(diff.hunks).toBe(2);
    await caller.git.applyHunk({
      projectId: project.id,
      path: "list.txt",
      hunkIndex: 0,
      action: "stage",
      expectedDiff: diff.patch,
    });
    const status = await caller.git.status({ projectId: project.id });
    expect(status).toMatchObject({
      staged: [{ path: "list.txt", letter: "M" }],
      changed: [{ path: "list.txt", letter: "M" }],
    });
    await caller.git.commit({ projectId: project.id, message: "Change the first line" });
    await caller.git.push({ projectId: project.id, operationId: randomUUID() });
    expect(server.git("app", ["log", "-1", "--format=%an|%ae|%s"]).trim()).toBe(
      `${user.name}|${user.email}|Change the first line`,
    );
    expect(server.git("app", ["show", "main:list.txt"])).toContain("line one changed");
    expect(server.git("app", ["show", "main:list.txt"])).not.toContain("twenty-eight");
  });

  it("pulls by rebase when the project says so: local commits on top, no merge commit", async () => {
    server.createRepository("linear", { "a.txt": "a\n", "b.txt": "b\n" });
    const project = await caller.project.create({ name: "Linear", gitUrl: `${server.url}/linear.git` });
    const root = env.services.files.pathOf(project.id);
    await writeFile(path.join(root, "a.txt"), "a, mine\n");
    await caller.git.stage({ projectId: project.id, paths: ["a.txt"] });
    await caller.git.commit({ projectId: project.id, message: "Mine" });
    server.commitElsewhere("linear", { "b.txt": "b, theirs\n" }, "Theirs");
    await caller.git.setPullMode({ projectId: project.id, mode: "rebase" });
    await caller.git.pull({ projectId: project.id, operationId: randomUUID() });
    const log = await caller.git.log({ projectId: project.id, limit: 3 });
    expect(log.map((c) => c.subject)).toEqual(["Mine", "Theirs", "Initial commit"]);
    expect(log[0]!.parents).toHaveLength(1);
    expect(await caller.git.status({ projectId: project.id })).toMatchObject({
      ahead: 1,
      behind: 0,
      pullMode: "rebase",
    });
  });

  it("commits a merge whose conflict was resolved to this side: nothing differs from HEAD, and it is still the merge", async () => {
    server.createRepository("ours", { "a.txt": "a\n" });
    const project = await caller.project.create({ name: "Ours", gitUrl: `${server.url}/ours.git` });
    const root = env.services.files.pathOf(project.id);
    await writeFile(path.join(root, "a.txt"), "a, mine\n");
    await caller.git.stage({ projectId: project.id, paths: ["a.txt"] });
    await caller.git.commit({ projectId: project.id, message: "Mine" });
    server.commitElsewhere("ours", { "a.txt": "a, theirs\n" }, "Theirs");
    await caller.git.pull({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);
    expect(await caller.git.status({ projectId: project.id })).toMatchObject({
      operation: "merge",
      conflicted: [expect.objectContaining({ path: "a.txt" })],
    });
    await writeFile(path.join(root, "a.txt"), "a, mine\n");
    await caller.git.stage({ projectId: project.id, paths: ["a.txt"] });
    await caller.git.commit({ projectId: project.id, message: "Merge, keeping mine" });
    const [merge] = await caller.git.log({ projectId: project.id, limit: 1 });
    expect(merge).toMatchObject({ subject: "Merge, keeping mine", parents: [expect.any(String), expect.any(String)] });
    expect(await caller.git.status({ projectId: project.id })).toMatchObject({ operation: null, staged: [] });
    await expect(caller.git.commit({ projectId: project.id, message: "Empty" })).rejects.toMatchObject({
      message: expect.stringMatching(/Nothing is staged/),
    });
  });

  it("refuses to switch branches when uncommitted changes would be overwritten", async () => {
    const project = await caller.project.create({ name: "Branches", gitUrl: `${server.url}/app.git` });
    const root = env.services.files.pathOf(project.id);
    await caller.git.createBranch({ projectId: project.id, name: "other" });
    await writeFile(path.join(root, "README.md"), "# changed on other\n");
    await caller.git.stage({ projectId: project.id, paths: ["README.md"] });
    await caller.git.commit({ projectId: project.id, message: "Other readme" });
    await writeFile(path.join(root, "README.md"), "# uncommitted\n");
    await expect(caller.git.switchBranch({ projectId: project.id, name: "main" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/uncommitted changes would be overwritten/),
    });
    expect(await readFile(path.join(root, "README.md"), "utf8")).toBe("# uncommitted\n");
    expect(existsSync(root)).toBe(true);
  });
});

describe("pull requests from Source Control", () => {
  it("links a self-hosted forge's pull request page once a project admin says which forge serves the remote", async () => {
    // A GitLab, Gitea or Forgejo on an office host: nothing in its name says which it is.
    server.createRepository("acme/forge", { "README.md": "# forge\n" });
    const caller = createCaller(env.context(await env.createUser()));
    await caller.gitCredential.add({
      name: "Office forge",
      host: host(),
      username: "alice",
      token: "ghp_secret_token_123",
    });
    const project = await caller.project.create({ name: "Self-hosted", gitUrl: `${server.url}/acme/forge.git` });
    await caller.git.createBranch({ projectId: project.id, name: "feature/x" });
    const push = () => caller.git.push({ projectId: project.id, operationId: randomUUID() });
    expect(await push()).toMatchObject({ pullRequestUrl: null, canOpenPullRequest: false });
    expect(await caller.git.remote({ projectId: project.id })).toMatchObject({
      url: `${server.url}/acme/forge.git`,
      forge: null,
    });

    await caller.git.setForge({ projectId: project.id, forge: "gitea" });
    expect(await caller.git.remote({ projectId: project.id })).toMatchObject({ forge: "gitea" });
    expect(await push()).toMatchObject({
      pullRequestUrl: `${server.url}/acme/forge/compare/feature%2Fx`,
      canOpenPullRequest: false,
    });
    await caller.git.setForge({ projectId: project.id, forge: "gitlab" });
    expect(await push()).toMatchObject({
      pullRequestUrl: `${server.url}/acme/forge/-/merge_requests/new?merge_request%5Bsource_branch%5D=feature%2Fx`,
    });
    await caller.git.setForge({ projectId: project.id, forge: null });
    expect(await push()).toMatchObject({ pullRequestUrl: null });
  }, 120_000);

  it("sends no token to a forge API at an internal address the server's admin did not configure", async () => {
    // A project admin names a remote on an internal address and says it is a Gitea: the server
    // itself would call its API with the member's token and show what it answered.
    const internal: string[] = [];
    const api = http.createServer((req, res) => {
      internal.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { "content-type": "application/json" }).end('{"message":"internal service"}');
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const apiHost = `127.0.0.1:${(api.address() as AddressInfo).port}`;
      await caller.gitCredential.add({ name: "Internal", host: apiHost, username: "alice", token: "internal_token_1" });
      server.createRepository("acme/internal", { "README.md": "# internal\n" });
      const project = await caller.project.create({ name: "Internal", gitUrl: `${server.url}/acme/internal.git` });
      await caller.git.createBranch({ projectId: project.id, name: "feature" });
      await caller.git.setRemote({ projectId: project.id, url: `http://${apiHost}/acme/internal.git` });
      await caller.git.setForge({ projectId: project.id, forge: "gitea" });
      await expect(caller.git.openPullRequest({ projectId: project.id, title: "In" })).rejects.toMatchObject({
        message: expect.stringMatching(/127\.0\.0\.1.*loopback.*TANDEM_GIT_FORGES/),
      });
      expect(internal).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  }, 120_000);

  it("opens one through the host's API and posts its link in the session open beside it, never in another project's", async () => {
    // GitHub's REST pulls endpoint, served locally: the one fake allowed, since a real forge cannot run here.
    const api = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (chunk) => (raw += chunk));
      req.on("end", () => {
        if (
          req.method !== "POST" ||
          req.url !== "/api/v3/repos/acme/shop/pulls" ||
          req.headers.authorization !== "Bearer ghp_secret_token_123"
        )
          return res.writeHead(404).end('{"message":"Not Found"}');
        const body = JSON.parse(raw) as { head: string; base: string };
        res.writeHead(201, { "content-type": "application/json" }).end(
          JSON.stringify({
            number: 12,
            html_url: `https://forge.test/acme/shop/pull/12?head=${body.head}&base=${body.base}`,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      env.services.config.gitForges = parseForges(
        `${host()}=github@http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`,
      );
      server.createRepository("acme/shop");
      const project = await caller.project.create({ name: "Shop", gitUrl: `${server.url}/acme/shop.git` });
      await caller.git.createBranch({ projectId: project.id, name: "feature" });
      const session = await createSession(env.services.db, {
        projectId: project.id,
        title: "Feature work",
        authorId: user.id,
        model: "openai-compatible:none",
      });
      const url = "https://forge.test/acme/shop/pull/12?head=feature&base=main";

      expect(
        await caller.git.openPullRequest({ projectId: project.id, title: "Add the feature", sessionId: session.id }),
      ).toEqual({ url, number: 12, head: "feature", base: "main" });
      const events = await listEvents(env.services.db, session.id, -1);
      expect(
        events
          .filter((e) => e.type === "pull_request_opened")
          .map((e) => ({ payload: e.payload, authorId: e.authorId })),
      ).toEqual([
        {
          payload: {
            url,
            number: 12,
            title: "Add the feature",
            head: "feature",
            base: "main",
            by: { id: user.id, name: user.name },
          },
          authorId: user.id,
        },
      ]);

      // A session of another project (the caller's own, even) is not written to.
      const other = await caller.project.create({ name: "Other" });
      const foreign = await createSession(env.services.db, {
        projectId: other.id,
        title: "Elsewhere",
        authorId: user.id,
        model: "openai-compatible:none",
      });
      await caller.git.openPullRequest({ projectId: project.id, title: "Again", sessionId: foreign.id });
      expect((await listEvents(env.services.db, foreign.id, -1)).some((e) => e.type === "pull_request_opened")).toBe(
        false,
      );
    } finally {
      env.services.config.gitForges = {};
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  }, 120_000);
});
