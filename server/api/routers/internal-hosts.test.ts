import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createTestServices } from "@/server/test/services";

// An internal git server (an office Gitea) on an address the egress proxy refuses whatever the
// project's policy: 127.0.0.2 stands in for it, a loopback address, which only an exact entry may
// allow. Every clone goes the real way: the project.create procedure, git in bubblewrap, the
// egress proxy, the git server.

const createCaller = createCallerFactory(appRouter);
let server: GitHttpServer;
let plain: Awaited<ReturnType<typeof createTestServices>>;
let allowing: Awaited<ReturnType<typeof createTestServices>>;

beforeAll(async () => {
  server = await startGitHttpServer({ tokens: { "token-alice": "alice" }, host: "127.0.0.2" });
  server.createRepository("app", { "README.md": "# app\n", "src/index.ts": "export const x = 1;\n" });
  server.makePublic("app");
  plain = await createTestServices({ sandbox: "bwrap" });
  allowing = await createTestServices({ sandbox: "bwrap", internalHosts: ["127.0.0.2"] });
});
afterAll(async () => {
  await server.close();
  await plain?.dispose();
  await allowing?.dispose();
});

const remote = () => `${server.url}/app.git`;

describeSandboxed("internal git hosts", () => {
  it("refuses a clone from an internal address, naming the host, the address and where to allow it", async () => {
    const caller = createCaller(plain.context(await plain.createUser()));
    await expect(caller.project.create({ name: "Office", gitUrl: remote() })).rejects.toMatchObject({
      message: expect.stringMatching(
        /^Tandem does not connect to 127\.0\.0\.2: it is a loopback address, not an allowed internal host\. .*TANDEM_INTERNAL_HOSTS.*team settings, Internal hosts/,
      ),
    });
  });

  it("clones, pushes and fetches through the egress proxy from a host the server's admin allows", async () => {
    const caller = createCaller(allowing.context(await allowing.createUser()));
    const project = await caller.project.create({ name: "Office", gitUrl: remote() });
    expect(await readFile(path.join(allowing.services.files.pathOf(project.id), "src/index.ts"), "utf8")).toBe(
      "export const x = 1;\n",
    );
    server.commitElsewhere("app", { "README.md": "# app\nfrom a teammate\n" }, "From a teammate");
    await caller.git.fetch({ projectId: project.id, operationId: randomUUID() });
    expect(await caller.git.status({ projectId: project.id })).toMatchObject({ behind: 1 });
    await caller.git.pull({ projectId: project.id, operationId: randomUUID() });
    await caller.gitCredential.add({
      name: "Office forge",
      host: new URL(server.url).host,
      username: "alice",
      token: "token-alice",
    });
    await writeFile(path.join(allowing.services.files.pathOf(project.id), "NOTES.md"), "pushed from Tandem\n");
    await caller.git.stage({ projectId: project.id, paths: ["NOTES.md"] });
    await caller.git.commit({ projectId: project.id, message: "Notes" });
    await caller.git.push({ projectId: project.id, operationId: randomUUID() });
    expect(server.git("app", ["log", "-1", "--format=%s", "main"]).trim()).toBe("Notes");
    const log = await allowing.services.network.recent(project.id);
    expect(log.some((c) => c.host === "127.0.0.2" && c.allowed)).toBe(true);
  });

  it("lets a team admin allow internal hosts for the team's projects only, never the server's loopback", async () => {
    const owner = await plain.createUser();
    const caller = createCaller(plain.context(owner));
    const office = await caller.team.create({ name: "Office" });
    const other = await caller.team.create({ name: "Elsewhere" });

    // Neither a range that merely contains it nor an exact entry of a team opens loopback: that is the server admin's.
    for (const entries of [["127.0.0.0/8"], ["127.0.0.2"]]) {
      await caller.team.setInternalHosts({ teamId: office.id, entries });
      await expect(
        caller.project.create({ name: "Office app", teamId: office.id, gitUrl: remote() }),
      ).rejects.toMatchObject({
        message: expect.stringMatching(
          /127\.0\.0\.2: it is a loopback address, not an allowed internal host\. .*loopback and metadata addresses only the server's admin/,
        ),
      });
    }

    // An office range reaches the team's projects' egress proxy, and no other team's.
    await caller.team.setInternalHosts({ teamId: office.id, entries: ["git.office.lan", "10.20.0.0/16"] });
    expect(await caller.team.internalHosts({ teamId: office.id })).toEqual({
      team: ["git.office.lan", "10.20.0.0/16"],
      server: [],
    });
    const inOffice = await caller.project.create({ name: "Office app", teamId: office.id });
    const elsewhere = await caller.project.create({ name: "Elsewhere app", teamId: other.id });
    expect(await plain.services.sandbox.network(inOffice.id)).toMatchObject({
      teamInternalHosts: ["git.office.lan", "10.20.0.0/16"],
    });
    expect(await plain.services.sandbox.network(elsewhere.id)).toMatchObject({ teamInternalHosts: [] });

    // A member who is not an admin of the team cannot widen it; a bad entry is named.
    const member = await plain.createUser();
    await plain.services.db.teamMember.create({ data: { teamId: other.id, userId: member.id, role: "member" } });
    await expect(
      createCaller(plain.context(member)).team.setInternalHosts({ teamId: other.id, entries: ["10.0.0.0/8"] }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(caller.team.setInternalHosts({ teamId: office.id, entries: ["not a host!"] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});
