import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmod, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { createTestServices } from "@/server/test/services";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import type { SandboxMode } from "@/server/sandbox/launcher";

// A member of a team attacks the owner's git credential through the project's repository, the way
// they can from a terminal: by writing .git/config and scripts in the workspace. The owner then
// presses Push, Pull or Fetch in Source Control with their stored token.
const TOKEN = "ghp_owner_token_9d3e71";
const createCaller = createCallerFactory(appRouter);

/** Every file of the workspace's .git that a planted script wrote, read for the owner's token. */
async function leaked(root: string): Promise<string> {
  const names = (await readdir(path.join(root, ".git"))).filter((n) => n.endsWith("-stolen"));
  return (await Promise.all(names.map((n) => readFile(path.join(root, ".git", n), "utf8")))).join("\n");
}

const ran = (root: string, name: string) =>
  readFile(path.join(root, `.git/${name}-ran`), "utf8").then(
    () => true,
    () => false,
  );

// Unsandboxed, and in bubblewrap as in production: git's network reaches the test server by a
// test name through the egress proxy there.
function attacks(mode: SandboxMode) {
  let env: Awaited<ReturnType<typeof createTestServices>>;
  let server: GitHttpServer;
  let owner: ReturnType<typeof createCaller>;
  let member: ReturnType<typeof createCaller>;
  let teamId: string;
  /** The test server's URL as the project sees it. */
  const base = () => (mode === "bwrap" ? server.url.replace("127.0.0.1", "git.test") : server.url);
  const repository = (name: string, files?: Record<string, string>) =>
    server.createRepository(name, files).replace(server.url, base());

  beforeAll(async () => {
    env = await createTestServices({ sandbox: mode, egressTestHosts: new Map([["git.test", "127.0.0.1"]]) });
    server = await startGitHttpServer({ tokens: { [TOKEN]: "owner" } });
    owner = createCaller(env.context(await env.createUser()));
    member = createCaller(env.context(await env.createUser()));
    teamId = (await owner.team.create({ name: "Shared" })).id;
    const invite = await owner.team.createInvite({ teamId, role: "member" });
    await member.team.acceptInvite({ token: invite.path.slice(6) });
    await owner.gitCredential.add({ name: "Forge", host: new URL(base()).host, username: "owner", token: TOKEN });
  });
  afterAll(async () => {
    await server.close();
    await env.dispose();
  });

  /** The member's terminal: git and files in the shared workspace. */
  const terminal = (root: string) => ({
    git: (...args: string[]) =>
      execFileSync("git", args, {
        cwd: root,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
        encoding: "utf8",
      }),
    // A script that records that it ran and asks git's credential helper (the owner's, if one is
    // reachable) for the forge's credential, as the attacks on main did.
    async plant(name: string, passThrough = false) {
      const script = path.join(root, `.git/${name}.sh`);
      const ask = `printf 'protocol=http\\nhost=${new URL(base()).host}\\n\\n' | git credential fill >> "${root}/.git/${name}-stolen" 2>&1`;
      await writeFile(
        script,
        `#!/bin/sh\necho ran >> "${root}/.git/${name}-ran"\n${ask}\n${passThrough ? "cat\n" : ""}`,
      );
      await chmod(script, 0o755);
      return script;
    },
  });

  describe("a member's repository config against another person's Push, Pull and Fetch", () => {
    it("Push: a planted protocol.ext.allow and ext:: push URL run nothing, and the push goes to the remote Tandem stored", async () => {
      repository("ext-target");
      const project = await owner.project.create({ name: "Ext", teamId, gitUrl: `${base()}/ext-target.git` });
      const root = env.services.files.pathOf(project.id);
      const attacker = terminal(root);
      const script = await attacker.plant("ext");
      attacker.git("config", "protocol.ext.allow", "always");
      attacker.git("config", "remote.origin.pushurl", `ext::sh ${script}`);
      attacker.git("config", "core.sshCommand", `sh ${script}`);

      await writeFile(path.join(root, "owner.txt"), "owner's work\n");
      await owner.git.stage({ projectId: project.id, paths: ["owner.txt"] });
      await owner.git.commit({ projectId: project.id, message: "Owner's work" });
      await owner.git.push({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);

      expect(await ran(root, "ext")).toBe(false);
      expect(await leaked(root)).not.toContain(TOKEN);
      expect(server.git("ext-target", ["log", "-1", "--format=%s", "main"]).trim()).toBe("Owner's work");
    });

    it("Pull: a smudge filter never runs while the owner's token is reachable", async () => {
      // A public repository: the fetch needs no login, so the token is never asked for by git itself.
      repository("public", { "README.md": "# public\n" });
      server.makePublic("public");
      const project = await owner.project.create({ name: "Public", teamId, gitUrl: `${base()}/public.git` });
      const root = env.services.files.pathOf(project.id);
      const attacker = terminal(root);
      const script = await attacker.plant("smudge", true);
      attacker.git("config", "filter.evil.smudge", `sh ${script}`);
      attacker.git("config", "filter.evil.clean", "cat");
      attacker.git("config", "filter.evil.required", "true");
      await writeFile(path.join(root, ".git/info/attributes"), "* filter=evil\n");
      server.commitElsewhere("public", { "README.md": "# public\nfrom upstream\n" }, "Upstream change");

      await owner.git.pull({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);

      expect(await leaked(root)).not.toContain(TOKEN);
      expect(await ran(root, "smudge")).toBe(true);
      // The merge did bring the change in: the filter ran there (repository code, as in a terminal), with no secret.
      expect(await readFile(path.join(root, "README.md"), "utf8")).toBe("# public\nfrom upstream\n");
    });

    it("Push and Fetch: origin, pushurl and insteadOf changed by a member do not move the owner's push or fetch", async () => {
      const appUrl = repository("shop");
      const privateUrl = repository("owner-private", { "secret.txt": "private\n" });
      server.git("owner-private", ["branch", "private-only"]);
      const project = await owner.project.create({ name: "Shop", teamId, gitUrl: appUrl });
      const root = env.services.files.pathOf(project.id);
      const attacker = terminal(root);
      attacker.git("config", "remote.origin.url", privateUrl);
      attacker.git("config", "remote.origin.pushurl", privateUrl);
      attacker.git("config", `url.${privateUrl}.insteadOf`, appUrl);
      attacker.git("config", `url.${privateUrl}.pushInsteadOf`, appUrl);

      await owner.git.createBranch({ projectId: project.id, name: "feature" });
      await writeFile(path.join(root, "feature.txt"), "feature\n");
      await owner.git.stage({ projectId: project.id, paths: ["feature.txt"] });
      await owner.git.commit({ projectId: project.id, message: "Feature" });
      await owner.git.push({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);
      await owner.git.fetch({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);

      expect(server.git("shop", ["branch", "--list", "feature"])).toContain("feature");
      expect(server.git("owner-private", ["branch", "--list", "feature"]).trim()).toBe("");
      const remoteBranches = (await owner.git.branches({ projectId: project.id }))
        .filter((b) => b.remote)
        .map((b) => b.name);
      expect(remoteBranches.sort()).toEqual(["origin/feature", "origin/main"]);
      const privateOid = server.git("owner-private", ["rev-parse", "main"]).trim();
      expect(() => attacker.git("cat-file", "-e", privateOid)).toThrow();
    });

    it("refuses to send a token over plain http: unless the server's admin allows it, and says what to do", async () => {
      repository("plain");
      const project = await owner.project.create({ name: "Plain", teamId, gitUrl: `${base()}/plain.git` });
      const before = server.requests.length;
      env.services.config.gitAllowHttp = false;
      try {
        await expect(owner.git.fetch({ projectId: project.id, operationId: randomUUID() })).rejects.toMatchObject({
          message: expect.stringMatching(/plain http:\/\/ remote.*https.*TANDEM_GIT_ALLOW_HTTP/s),
        });
      } finally {
        env.services.config.gitAllowHttp = true;
      }
      expect(server.requests.slice(before).filter((r) => r.user !== null)).toEqual([]);
    });

    it("a repository made outside Tandem: its remote is what a project admin confirmed, never what a member writes later", async () => {
      const first = repository("made-elsewhere");
      const second = repository("moved-by-admin");
      const project = await owner.project.create({ name: "Local", teamId });
      await owner.network.update({
        projectId: project.id,
        policy: "allow-list",
        allowHosts: [new URL(base()).hostname],
      });
      const root = env.services.files.pathOf(project.id);
      const attacker = terminal(root);
      attacker.git("init", "-q", "-b", "main");
      attacker.git("remote", "add", "origin", first);

      // A member cannot be the one who decides where the team's remote is.
      await expect(member.git.fetch({ projectId: project.id, operationId: randomUUID() })).rejects.toMatchObject({
        message: expect.stringMatching(/has not recorded this project's remote yet.*project admin/),
      });
      await expect(
        member.git.setRemote({ projectId: project.id, url: repository("members-pick") }),
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
      await owner.git.fetch({ projectId: project.id, operationId: randomUUID() });
      expect(await member.git.remote({ projectId: project.id })).toEqual({ url: first, origin: first, forge: null });

      // The member's own Fetch (with no token: the server refuses it) goes to the recorded remote too.
      attacker.git("remote", "set-url", "origin", repository("member-choice"));
      const sent = server.requests.length;
      await member.git.fetch({ projectId: project.id, operationId: randomUUID() }).catch(() => undefined);
      await owner.git.fetch({ projectId: project.id, operationId: randomUUID() });
      expect(server.requests.slice(sent).map((r) => r.path.split("/")[1])).toEqual(
        expect.arrayContaining(["made-elsewhere.git"]),
      );
      expect(server.requests.some((r) => r.path.startsWith("/member-choice.git/"))).toBe(false);
      expect((await member.git.remote({ projectId: project.id })).url).toBe(first);

      await owner.git.setRemote({ projectId: project.id, url: second });
      expect(await member.git.remote({ projectId: project.id })).toEqual({ url: second, origin: second, forge: null });
      // A password someone wrote into origin's URL is not shown to the team.
      attacker.git("remote", "set-url", "origin", second.replace("://", "://someone:hunter2@"));
      expect((await member.git.remote({ projectId: project.id })).origin).toBe(
        second.replace("://", "://someone:***@"),
      );
    });
  });
}

describe("unsandboxed", () => attacks("none"));
describeSandboxed("in bubblewrap, through the egress proxy", () => attacks("bwrap"));
