import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { credentialCipher } from "@/server/git/credential-cipher";
import { resealSecrets, secretEnvironment } from "@/server/services/secrets";
import { createTestServices } from "@/server/test/services";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type Person = NonNullable<Parameters<typeof env.context>[0]>;
let owner: Person;
let member: Person;
let teamId: string;
let projectId: string;
let otherProjectId: string;
const as = (user: Person) => createCaller(env.context(user));

beforeAll(async () => {
  env = await createTestServices();
  owner = await env.createUser();
  member = await env.createUser();
  const team = await createTeam(env.services.db, { name: "Acme", ownerId: owner.id });
  teamId = team.id;
  await addMember(env.services.db, team.id, member.id, "member");
  projectId = (await as(owner).project.create({ name: "App", teamId })).id;
  otherProjectId = (await as(owner).project.create({ name: "Elsewhere" })).id;
});
afterAll(() => env.dispose());

describe("secrets", () => {
  it("keeps the value sealed in the database and never gives it back", async () => {
    const value = "npm_0123456789abcdefSEALED";
    const created = await as(owner).secret.projectSet({ projectId, name: "NPM_TOKEN", value });
    expect(created).not.toHaveProperty("value");
    expect(JSON.stringify(created)).not.toContain(value);
    const listed = await as(member).secret.projectList({ projectId });
    expect(listed.map((s) => s.name)).toEqual(["NPM_TOKEN"]);
    expect(JSON.stringify(listed)).not.toContain(value);
    // The row itself, as anyone with the database would read it.
    const rows = await env.services.db.$queryRawUnsafe<Array<Record<string, unknown>>>(
      `SELECT * FROM "secret" WHERE "projectId" = $1`,
      projectId,
    );
    expect(rows).toHaveLength(1);
    const raw = Buffer.from(rows[0]!.secret as Uint8Array);
    expect(raw.includes(Buffer.from(value))).toBe(false);
    expect(raw.includes(Buffer.from(value).toString("base64"))).toBe(false);
    expect(JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(value);
  });

  it("replaces a value under the same name and deletes by id", async () => {
    await as(owner).secret.projectSet({ projectId, name: "REPLACED_KEY", value: "first-value-1234" });
    const second = await as(owner).secret.projectSet({ projectId, name: "REPLACED_KEY", value: "second-value-5678" });
    const listed = await as(owner).secret.projectList({ projectId });
    expect(listed.filter((s) => s.name === "REPLACED_KEY")).toHaveLength(1);
    const { env: vars } = await secretEnvironment(env.services.db, env.services.gitCipher, { projectId });
    expect(vars.REPLACED_KEY).toBe("second-value-5678");
    await as(owner).secret.projectRemove({ projectId, secretId: second.id });
    await expect(as(owner).secret.projectRemove({ projectId, secretId: second.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await as(owner).secret.projectList({ projectId })).map((s) => s.name)).not.toContain("REPLACED_KEY");
  });

  it("refuses names that are not variable names or that the sandbox sets, and short values, saying why", async () => {
    for (const name of ["PATH", "HOME", "LD_PRELOAD", "TANDEM_SECRET", "HTTPS_PROXY", "https_proxy", "NODE_OPTIONS"]) {
      await expect(as(owner).secret.projectSet({ projectId, name, value: "long-enough-value" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("choose another name"),
      });
    }
    for (const name of ["1ABC", "MY-TOKEN", "A B", ""]) {
      await expect(as(owner).secret.projectSet({ projectId, name, value: "long-enough-value" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("environment variable name"),
      });
    }
    await expect(as(owner).secret.projectSet({ projectId, name: "SHORT", value: "abc" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("at least 8 characters"),
    });
  });

  it("keeps a person's secrets theirs: another member neither lists, removes nor gets them", async () => {
    const mine = await as(owner).secret.set({ name: "OWN_KEY", value: "owner-only-value-42" });
    expect((await as(member).secret.list()).map((s) => s.name)).not.toContain("OWN_KEY");
    await expect(as(member).secret.remove({ secretId: mine.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const forMember = await secretEnvironment(env.services.db, env.services.gitCipher, {
      projectId,
      personId: member.id,
    });
    expect(forMember.env).not.toHaveProperty("OWN_KEY");
    expect(forMember.redactor.redact("owner-only-value-42")).toBe("owner-only-value-42");
    const forOwner = await secretEnvironment(env.services.db, env.services.gitCipher, {
      projectId,
      personId: owner.id,
    });
    expect(forOwner.env.OWN_KEY).toBe("owner-only-value-42");
    expect(forOwner.personal).toEqual(["OWN_KEY"]);
  });

  it("gives a project its team's secrets, the person's over the project's over the team's", async () => {
    await as(owner).secret.teamSet({ teamId, name: "SHARED", value: "team-value-000" });
    await as(owner).secret.teamSet({ teamId, name: "TEAM_ONLY", value: "team-only-value" });
    await as(owner).secret.projectSet({ projectId, name: "SHARED", value: "project-value-111" });
    await as(member).secret.set({ name: "SHARED", value: "member-value-222" });
    const project = await secretEnvironment(env.services.db, env.services.gitCipher, { projectId });
    expect(project.env).toMatchObject({ SHARED: "project-value-111", TEAM_ONLY: "team-only-value" });
    const person = await secretEnvironment(env.services.db, env.services.gitCipher, { projectId, personId: member.id });
    expect(person.env.SHARED).toBe("member-value-222");
    expect(person.redactor.redact("x member-value-222 y")).toBe("x [secret SHARED] y");
    // Another team's project sees none of them.
    const other = await secretEnvironment(env.services.db, env.services.gitCipher, { projectId: otherProjectId });
    expect(other.env).toEqual({});
    expect((await as(member).secret.teamList({ teamId })).map((s) => s.name)).toEqual(["SHARED", "TEAM_ONLY"]);
  });

  it("opens values sealed under a previous server secret after a rotation, and seals them again", async () => {
    const rotating = (await as(owner).project.create({ name: "Rotating" })).id;
    await as(owner).secret.projectSet({ projectId: rotating, name: "ROTATED", value: "sealed-before-rotation" });
    const rotated = credentialCipher("y".repeat(32), ["x".repeat(32)]);
    expect(await resealSecrets(env.services.db, rotated)).toBeGreaterThan(0);
    const after = await secretEnvironment(env.services.db, rotated, { projectId: rotating });
    expect(after.env.ROTATED).toBe("sealed-before-rotation");
    // The old key alone no longer opens them.
    expect((await secretEnvironment(env.services.db, env.services.gitCipher, { projectId: rotating })).env).toEqual({});
    await resealSecrets(env.services.db, credentialCipher("x".repeat(32), ["y".repeat(32)]));
  });
});
