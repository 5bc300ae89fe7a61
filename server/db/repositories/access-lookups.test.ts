import { describe, expect, it } from "vitest";
import { databaseForFile } from "@/server/test/database";
import { createProject, findProject, findProjectForUser } from "./projects";
import { createSession, findSession, findSessionForUser } from "./sessions";
import { addMember, createTeam } from "./teams";

// The lookups every project and session procedure starts with are raw SQL (one query instead of
// Prisma's three or four): they must give exactly what Prisma's own reads give, dates as dates,
// JSON as values, and refuse whoever is not in the project's team.

const database = databaseForFile(async (db) => {
  for (const id of ["owner", "viewer", "stranger"])
    await db.user.create({ data: { id, name: id, email: `${id}@example.com` } });
});

describe("access lookups", () => {
  it("find a project with the caller's role in its team, and nothing for someone outside it", async () => {
    const team = await createTeam(database.db, { name: "Crew", ownerId: "owner" });
    await addMember(database.db, team.id, "viewer", "viewer");
    const project = await createProject(database.db, { name: "Shop", ownerId: "owner", teamId: team.id });

    expect(await findProjectForUser(database.db, project.id, "owner")).toEqual({
      project: await findProject(database.db, project.id),
      role: "owner",
    });
    expect(await findProjectForUser(database.db, project.id, "viewer")).toEqual({ project, role: "viewer" });
    expect(await findProjectForUser(database.db, project.id, "stranger")).toBeNull();
    expect(await findProjectForUser(database.db, crypto.randomUUID(), "owner")).toBeNull();
  });

  it("find a session with its project and the caller's role, as Prisma reads them", async () => {
    const team = await createTeam(database.db, { name: "Crew two", ownerId: "owner" });
    await addMember(database.db, team.id, "viewer", "viewer");
    const project = await createProject(database.db, { name: "Shop two", ownerId: "owner", teamId: team.id });
    const parent = await createSession(database.db, {
      projectId: project.id,
      title: "Parent",
      authorId: "owner",
      model: "m",
    });
    const child = await createSession(database.db, {
      projectId: project.id,
      title: "Child",
      authorId: "owner",
      model: "m",
      parentId: parent.id,
      allowedTools: ["read_file"],
      maxSteps: 7,
    });
    await database.db.agentSession.update({
      where: { id: child.id },
      data: { allowRules: [{ tool: "bash", pattern: "npm test" }], costUsd: 0.125, inputTokens: 12, status: "running" },
    });

    const asPrisma = await findSession(database.db, child.id);
    const found = await findSessionForUser(database.db, child.id, "viewer");
    expect(found).toEqual({ session: asPrisma, project: await findProject(database.db, project.id), role: "viewer" });
    expect(found!.session.createdAt).toBeInstanceOf(Date);
    expect(found!.session.allowRules).toEqual([{ tool: "bash", pattern: "npm test" }]);

    // Outside the team, or signed out: the session is found (a share link may still let them watch), with no role.
    expect(await findSessionForUser(database.db, child.id, "stranger")).toEqual({
      session: asPrisma,
      project,
      role: null,
    });
    expect(await findSessionForUser(database.db, parent.id, null)).toMatchObject({
      session: { id: parent.id, allowedTools: null, maxSteps: null },
      role: null,
    });
    expect(await findSessionForUser(database.db, crypto.randomUUID(), "owner")).toBeNull();
  });
});
