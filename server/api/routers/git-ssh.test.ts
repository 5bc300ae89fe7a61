import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { generateSshKey, startGitSshServer, type GitSshServer } from "@/server/test/git-ssh-server";
import { createTestServices } from "@/server/test/services";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let server: GitSshServer;
let caller: ReturnType<typeof createCaller>;
const alice = generateSshKey("ed25519");
const team = generateSshKey("rsa", "team passphrase");

beforeAll(async () => {
  env = await createTestServices();
  server = await startGitSshServer({ authorizedKeys: [alice.publicKey, team.publicKey] });
  server.createRepository("app", { "README.md": "# app\n" });
  caller = createCaller(env.context(await env.createUser()));
});
afterAll(async () => {
  await server.close();
  await env.dispose();
});

/** The fingerprint as OpenSSH's own ssh-keygen prints it for the public key. */
async function keygenFingerprint(publicKey: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-fp-"));
  try {
    await writeFile(path.join(dir, "key.pub"), publicKey);
    const { stdout } = await promisify(execFile)("ssh-keygen", ["-l", "-E", "sha256", "-f", path.join(dir, "key.pub")]);
    return stdout.split(" ")[1]!;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const url = (repo: string) => `ssh://git@127.0.0.1:${server.port}/${repo}.git`;

describe("ssh key credentials", () => {
  it("stores a key sealed, shows its fingerprint and never the key, and refuses what ssh could not use", async () => {
    const stored = await caller.gitCredential.add({
      kind: "ssh-key",
      name: "Laptop key",
      host: `127.0.0.1:${server.port}`,
      privateKey: alice.privateKey,
    });
    expect(stored).toMatchObject({
      kind: "ssh-key",
      username: "git",
      fingerprint: await keygenFingerprint(alice.publicKey),
    });
    const listed = JSON.stringify(await caller.gitCredential.list());
    expect(listed).toContain(stored.fingerprint!);
    expect(listed).not.toContain("PRIVATE KEY");
    const row = await env.services.db.gitCredential.findFirstOrThrow({ where: { id: stored.id } });
    expect(Buffer.from(row.secret).toString("latin1")).not.toContain(alice.privateKey.split("\n")[1]!);

    const add = (input: { privateKey: string; passphrase?: string }) =>
      caller.gitCredential.add({ kind: "ssh-key", name: "Bad", host: "example.org", ...input });
    await expect(add({ privateKey: "not a key" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/not an ssh private key/),
    });
    await expect(add({ privateKey: alice.publicKey })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/public key/),
    });
    await expect(add({ privateKey: team.privateKey })).rejects.toMatchObject({
      message: expect.stringMatching(/give its passphrase/),
    });
    await expect(add({ privateKey: team.privateKey, passphrase: "wrong" })).rejects.toMatchObject({
      message: expect.stringMatching(/passphrase does not open/),
    });
  });

  it("creates a project from an ssh URL with the key, records the host key, then fetches and pushes", async () => {
    const project = await caller.project.create({ name: "Over ssh", gitUrl: url("app") });
    const root = env.services.files.pathOf(project.id);
    expect(await readFile(path.join(root, "README.md"), "utf8")).toBe("# app\n");
    const known = await env.services.db.gitKnownHost.findMany({ where: { projectId: project.id } });
    expect(known).toEqual([
      expect.objectContaining({
        host: `[127.0.0.1]:${server.port}`,
        keyType: server.hostKey.keyType,
        key: server.hostKey.key,
      }),
    ]);

    await writeFile(path.join(root, "notes.txt"), "from tandem\n");
    await caller.git.stage({ projectId: project.id, paths: ["notes.txt"] });
    await caller.git.commit({ projectId: project.id, message: "Add notes" });
    await caller.git.push({ projectId: project.id, operationId: randomUUID() });
    expect(server.git("app", ["show", "main:notes.txt"])).toBe("from tandem\n");
    await caller.git.fetch({ projectId: project.id, operationId: randomUUID() });
    expect(await caller.git.status({ projectId: project.id })).toMatchObject({ ahead: 0, behind: 0 });

    // The accepted key is listed by its fingerprint; forgetting it lets the next connection record the key again.
    const hostName = `[127.0.0.1]:${server.port}`;
    expect(await caller.git.knownHosts({ projectId: project.id })).toEqual([
      expect.objectContaining({
        host: hostName,
        keyType: server.hostKey.keyType,
        fingerprint: await keygenFingerprint(`${server.hostKey.keyType} ${server.hostKey.key}\n`),
      }),
    ]);
    expect(await caller.git.forgetHostKey({ projectId: project.id, host: hostName })).toEqual({ forgotten: 1 });
    expect(await caller.git.knownHosts({ projectId: project.id })).toEqual([]);
    await caller.git.fetch({ projectId: project.id, operationId: randomUUID() });
    expect(await caller.git.knownHosts({ projectId: project.id })).toHaveLength(1);
  });

  it("uses a team's shared key, and says authentication failed for a key the server refuses, leaving no project", async () => {
    const other = await env.createUser();
    const otherCaller = createCaller(env.context(other));
    const { id: teamId } = await otherCaller.team.create({ name: "Ssh team" });
    await otherCaller.gitCredential.teamAdd({
      teamId,
      kind: "ssh-key",
      name: "Deploy key",
      host: `127.0.0.1:${server.port}`,
      privateKey: team.privateKey,
      passphrase: "team passphrase",
    });
    const project = await otherCaller.project.create({ name: "Team clone", teamId, gitUrl: url("app") });
    expect(await readFile(path.join(env.services.files.pathOf(project.id), "README.md"), "utf8")).toBe("# app\n");

    const stranger = createCaller(env.context(await env.createUser()));
    await stranger.gitCredential.add({
      kind: "ssh-key",
      name: "Unknown",
      host: `127.0.0.1:${server.port}`,
      privateKey: generateSshKey("ed25519").privateKey,
    });
    await expect(stranger.project.create({ name: "Refused", gitUrl: url("app") })).rejects.toMatchObject({
      message: expect.stringMatching(/^Authentication failed/),
    });
    await expect(caller.project.create({ name: "Missing", gitUrl: url("missing") })).rejects.toMatchObject({
      message: expect.stringMatching(/^Repository not found/),
    });
    expect(await stranger.project.list()).toEqual([]);
  });
});
