import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { asRole, type TeamRole } from "@/server/db/repositories/teams";

// A project belongs to a team; the caller's role in the project is their role in that team.
export type ProjectRole = TeamRole;
export type Project = { id: string; name: string; ownerId: string; teamId: string; createdAt: Date; updatedAt: Date };

const projectSelect = { id: true, name: true, ownerId: true, teamId: true, createdAt: true, updatedAt: true } as const;

/**
 * The one place a project's access is decided: null when the user is not in the project's team.
 * Every project procedure starts with it, so it is one query (SQL: Prisma reads the team and its
 * membership with two more), straight to the pool (db.sql).
 */
export async function findProjectForUser(
  db: Db,
  projectId: string,
  userId: string,
): Promise<{ project: Project; role: ProjectRole } | null> {
  const [row] = await db.sql<Project & { role: string }>`
    SELECT p.id, p.name, p."ownerId", p."teamId", p."createdAt", p."updatedAt", m.role
    FROM project p JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${userId}
    WHERE p.id = ${projectId}`;
  if (!row) return null;
  const { role, ...project } = row;
  return { project, role: asRole(role) };
}

/** The person's role in the project's team, or null when they are not in it or their account is disabled. */
export async function activeRoleInProject(db: Db, projectId: string, userId: string): Promise<ProjectRole | null> {
  const [row] = await db.sql<{ role: string }>`
    SELECT m.role
    FROM project p
    JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${userId}
    JOIN "user" u ON u.id = m."userId" AND u."disabledAt" IS NULL
    WHERE p.id = ${projectId}`;
  return row ? asRole(row.role) : null;
}

/** The project worked in last: the latest of its own change and its sessions' (null when there is none). */
export async function lastWorkedProjectId(db: Db): Promise<string | null> {
  const [row] = await db.sql<{ id: string }>`
    SELECT p.id FROM project p
    ORDER BY GREATEST(p."updatedAt",
      COALESCE((SELECT max(s."updatedAt") FROM agent_session s WHERE s."projectId" = p.id), p."updatedAt")) DESC
    LIMIT 1`;
  return row?.id ?? null;
}

export async function findProject(db: Db, projectId: string): Promise<Project | null> {
  return db.project.findUnique({ where: { id: projectId }, select: projectSelect });
}

export async function listProjectsForUser(
  db: Db,
  userId: string,
  teamId?: string,
): Promise<Array<Project & { teamName: string }>> {
  const rows = await db.project.findMany({
    where: { team: { members: { some: { userId } } }, ...(teamId ? { teamId } : {}) },
    select: { ...projectSelect, team: { select: { name: true } } },
    orderBy: { updatedAt: "desc" },
  });
  return rows.map(({ team, ...project }) => ({ ...project, teamName: team.name }));
}

export async function createProject(
  db: Db,
  input: { name: string; ownerId: string; teamId: string },
): Promise<Project> {
  return db.project.create({ data: input, select: projectSelect });
}

export async function renameProject(db: Db, id: string, name: string): Promise<Project> {
  return db.project.update({ where: { id }, data: { name }, select: projectSelect });
}

export async function deleteProject(db: Db, id: string) {
  const project = await db.project.delete({ where: { id }, select: { name: true, teamId: true } });
  await recordAudit(db, "project.deleted", { projectId: id, teamId: project.teamId, detail: { name: project.name } });
}
