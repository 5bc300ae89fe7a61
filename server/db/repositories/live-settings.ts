import type { Db } from "@/server/db/client";

/** How long after the last edit a project's live documents save themselves; null: they do not. */
export async function findAutosave(db: Db, projectId: string): Promise<number | null> {
  const row = await db.project.findUnique({ where: { id: projectId }, select: { liveAutosaveMs: true } });
  return row?.liveAutosaveMs ?? null;
}

export async function setAutosave(db: Db, projectId: string, ms: number | null): Promise<void> {
  await db.project.update({ where: { id: projectId }, data: { liveAutosaveMs: ms } });
}
