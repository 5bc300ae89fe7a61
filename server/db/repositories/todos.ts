import type { Db } from "@/server/db/client";

export type TodoStatus = "pending" | "in_progress" | "completed";
export type TodoRow = { id: string; content: string; status: TodoStatus };

/** Replaces the session's task list as a whole, in one transaction. */
export async function replaceTodos(db: Db, sessionId: string, todos: TodoRow[]) {
  await db.$transaction([
    db.sessionTodo.deleteMany({ where: { sessionId } }),
    db.sessionTodo.createMany({ data: todos.map((t, position) => ({ sessionId, position, ...t })) }),
  ]);
}

export async function listTodos(db: Db, sessionId: string): Promise<TodoRow[]> {
  const rows = await db.sessionTodo.findMany({
    where: { sessionId },
    orderBy: { position: "asc" },
    select: { id: true, content: true, status: true },
  });
  return rows.map((r) => ({ ...r, status: r.status as TodoStatus }));
}
