import type { Db } from "@/server/db/client";

export type ProjectRole = "owner" | "admin" | "member" | "viewer";
export type Project = { id: string; name: string; ownerId: string; createdAt: Date; updatedAt: Date };

const projectSelect = { id: true, name: true, ownerId: true, createdAt: true, updatedAt: true } as const;

export async function findProjectForUser(db: Db, projectId: string, userId: string) {
  const project = await db.project.findUnique({ where: { id: projectId }, select: projectSelect });
  if (!project || project.ownerId !== userId) return null;
  return { project, role: "owner" as ProjectRole };
}

export async function listProjectsForUser(db: Db, userId: string): Promise<Project[]> {
  return db.project.findMany({ where: { ownerId: userId }, select: projectSelect, orderBy: { updatedAt: "desc" } });
}

export async function createProject(db: Db, input: { name: string; ownerId: string }): Promise<Project> {
  return db.project.create({ data: input, select: projectSelect });
}

export async function renameProject(db: Db, id: string, name: string): Promise<Project> {
  return db.project.update({ where: { id }, data: { name }, select: projectSelect });
}

export async function deleteProject(db: Db, id: string) {
  await db.project.delete({ where: { id } });
}
