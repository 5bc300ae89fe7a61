import type { Db } from "@/server/db/client";

export type NoteRow = {
  id: string;
  sessionId: string;
  title: string;
  content: string;
  updatedById: string | null;
  createdAt: Date;
  updatedAt: Date;
};
const select = {
  id: true,
  sessionId: true,
  title: true,
  content: true,
  updatedById: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Creates the session's note with this title, or replaces its content. */
export async function saveNote(
  db: Db,
  input: { sessionId: string; title: string; content: string; updatedById: string | null },
): Promise<NoteRow> {
  const { sessionId, title, content, updatedById } = input;
  return db.sessionNote.upsert({
    where: { sessionId_title: { sessionId, title } },
    create: { sessionId, title, content, updatedById },
    update: { content, updatedById },
    select,
  });
}

export async function listNotes(db: Db, sessionId: string): Promise<NoteRow[]> {
  return db.sessionNote.findMany({ where: { sessionId }, select, orderBy: { createdAt: "asc" } });
}

export async function findNote(db: Db, id: string): Promise<NoteRow | null> {
  return db.sessionNote.findUnique({ where: { id }, select });
}

export async function updateNote(
  db: Db,
  id: string,
  input: { title?: string; content?: string; updatedById: string },
): Promise<NoteRow> {
  return db.sessionNote.update({ where: { id }, data: input, select });
}
