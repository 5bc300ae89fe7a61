import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrate } from "@/server/db/migrate";
import { createTestDatabase } from "@/server/test/database";
import {
  acceptTeamInvite,
  checkTeamInvite,
  createTeam,
  createTeamInvite,
  ensurePersonalTeam,
  listTeamsForUser,
} from "./teams";
import { findProjectForUser } from "./projects";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("teams migration", () => {
  it("moves projects made before teams into their owner's personal team, losing nothing", async () => {
    const database = await createTestDatabase({ migrate: false });
    cleanups.push(() => database.drop());
    const before = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-migrations-"));
    cleanups.push(() => fs.rm(before, { recursive: true, force: true }));
    const all = (await fs.readdir("prisma/migrations", { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    for (const name of all.filter((n) => n < "20261122030000_teams")) {
      await fs.cp(path.join("prisma/migrations", name), path.join(before, name), { recursive: true });
    }
    await migrate(database.url, before);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      `INSERT INTO "user" (id, name, email, "updatedAt") VALUES ('ann', 'Ann', 'ann@example.com', now()), ('bob', 'Bob', 'bob@example.com', now())`,
    );
    await client.query(`INSERT INTO "project" (id, name, "ownerId", "updatedAt") VALUES
      ('11111111-1111-4111-8111-111111111111', 'Ann one', 'ann', '2026-01-01'),
      ('22222222-2222-4222-8222-222222222222', 'Ann two', 'ann', '2026-01-02'),
      ('33333333-3333-4333-8333-333333333333', 'Bob one', 'bob', '2026-01-03')`);
    await client.end();

    await migrate(database.url);
    const db = database.db;
    const [annTeam] = await listTeamsForUser(db, "ann");
    expect(annTeam).toMatchObject({ name: "Ann's projects", personal: true, role: "owner", members: 1 });
    expect((await ensurePersonalTeam(db, { id: "ann" })).id).toBe(annTeam!.id);
    const projects = await db.project.findMany({
      orderBy: { name: "asc" },
      select: { name: true, teamId: true, ownerId: true, updatedAt: true },
    });
    expect(projects.map((p) => [p.name, p.ownerId, p.teamId === annTeam!.id])).toEqual([
      ["Ann one", "ann", true],
      ["Ann two", "ann", true],
      ["Bob one", "bob", false],
    ]);
    expect(projects[0]!.updatedAt.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(await findProjectForUser(db, "33333333-3333-4333-8333-333333333333", "bob")).toMatchObject({
      role: "owner",
    });
    expect(await findProjectForUser(db, "33333333-3333-4333-8333-333333333333", "ann")).toBeNull();
  });
});

describe("team invitations", () => {
  it("work once, with their role, and never lower a role someone has", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const db = database.db;
    for (const id of ["owner", "joiner", "admin"])
      await db.user.create({ data: { id, name: id, email: `${id}@example.com` } });
    const team = await createTeam(db, { name: "Crew", ownerId: "owner" });
    const invite = await createTeamInvite(db, { teamId: team.id, role: "viewer", createdById: "owner" });
    expect(invite.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await db.teamInvite.count({ where: { tokenHash: invite.token } })).toBe(0);
    const check = await checkTeamInvite(db, invite.token);
    if (!check.ok) throw new Error(check.reason);
    expect(await acceptTeamInvite(db, check.id, team.id, "joiner", check.role)).toBe(true);
    expect(await acceptTeamInvite(db, check.id, team.id, "admin", check.role)).toBe(false);
    expect(await checkTeamInvite(db, invite.token)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/already been used/),
    });
    expect((await listTeamsForUser(db, "joiner")).find((t) => t.id === team.id)?.role).toBe("viewer");

    const second = await createTeamInvite(db, { teamId: team.id, role: "viewer", createdById: "owner" });
    const secondCheck = await checkTeamInvite(db, second.token);
    if (!secondCheck.ok) throw new Error(secondCheck.reason);
    expect(await acceptTeamInvite(db, secondCheck.id, team.id, "owner", "viewer")).toBe(true);
    expect((await listTeamsForUser(db, "owner")).find((t) => t.id === team.id)?.role).toBe("owner");
  });
});
