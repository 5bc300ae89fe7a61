import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { createTestDatabase } from "@/server/test/database";
import { createProject, findProject, findProjectForUser } from "./projects";
import { createSession, findSession, findSessionForUser } from "./sessions";
import { addMember, createTeam } from "./teams";

// The lookups every project and session procedure starts with are raw SQL (one query instead of
// Prisma's three or four): they must give exactly what Prisma's own reads give, dates as dates,
// JSON as values, and refuse whoever is not in the project's team.

let db: Db;
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});
beforeAll(async () => {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  db = database.db;
  for (const id of ["owner", "viewer", "stranger"]) await db.user.create({ data: { id, name: id, email: `${id}@example.com` } });
});

describe("access lookups", () => {
  it("find a project with the caller's role in its team, and nothing for someone outside it", async () => {
    const team = await createTeam(db, { name: "Crew", ownerId: "owner" });
    await addMember(db, team.id, "viewer", "viewer");
    const project = await createProject(db, { name: "Shop", ownerId: "owner", teamId: team.id });

    expect(await findProjectForUser(db, project.id, "owner")).toEqual({ project: await findProject(db, project.id), role: "owner" });
    expect(await findProjectForUser(db, project.id, "viewer")).toEqual({ project, role: "viewer" });
    expect(await findProjectForUser(db, project.id, "stranger")).toBeNull();
    expect(await findProjectForUser(db, crypto.randomUUID(), "owner")).toBeNull();
  });

  it("find a session with its project and the caller's role, as Prisma reads them", async () => {
    const team = await createTeam(db, { name: "Crew two", ownerId: "owner" });
    await addMember(db, team.id, "viewer", "viewer");
    const project = await createProject(db, { name: "Shop two", ownerId: "owner", teamId: team.id });
    const parent = await createSession(db, { projectId: project.id, title: "Parent", authorId: "owner", model: "m" });
    const child = await createSession(db, { projectId: project.id, title: "Child", authorId: "owner", model: "m", parentId: parent.id, allowedTools: ["read_file"], maxSteps: 7 });
    await db.agentSession.update({ where: { id: child.id }, data: { allowRules: [{ tool: "bash", pattern: "npm test" }], costUsd: 0.125, inputTokens: 12, status: "running" } });

    const asPrisma = await findSession(db, child.id);
    const found = await findSessionForUser(db, child.id, "viewer");
    expect(found).toEqual({ session: asPrisma, project: await findProject(db, project.id), role: "viewer" });
    expect(found!.session.createdAt).toBeInstanceOf(Date);
    expect(found!.session.allowRules).toEqual([{ tool: "bash", pattern: "npm test" }]);

    // Outside the team, or signed out: the session is found (a share link may still let them watch), with no role.
    expect(await findSessionForUser(db, child.id, "stranger")).toEqual({ session: asPrisma, project, role: null });
    expect(await findSessionForUser(db, parent.id, null)).toMatchObject({ session: { id: parent.id, allowedTools: null, maxSteps: null }, role: null });
    expect(await findSessionForUser(db, crypto.randomUUID(), "owner")).toBeNull();
  });
});
