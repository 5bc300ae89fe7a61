"use client";

import { useState } from "react";

export type Todo = { id: string; content: string; status: "pending" | "in_progress" | "completed" };

const MARK: Record<Todo["status"], string> = { pending: "○", in_progress: "◐", completed: "●" };

/** The agent's task list (todo_write) as a live checklist; people read it, the agent keeps it. */
export function TodoList({ todos }: { todos: Todo[] }) {
  const [open, setOpen] = useState(true);
  if (!todos.length) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <div className="todos" data-testid="todo-list">
      <button type="button" className="todos-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span>Tasks</span>
        <span className="muted">
          {done}/{todos.length} done
        </span>
        <span className="spacer" />
        <span aria-hidden>{open ? "▾" : "▸"}</span>
      </button>
      {open && (
        <ul>
          {todos.map((todo) => (
            <li key={todo.id} className={`todo ${todo.status}`} data-status={todo.status}>
              <span className="todo-mark" role="img" aria-label={todo.status.replace("_", " ")}>
                {MARK[todo.status]}
              </span>
              <span>{todo.content}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
