import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

// todo_write: the session's task list, replaced as a whole on every call so the agent (and the
// people watching) always see the current plan.

export type Todo = { id: string; content: string; status: "pending" | "in_progress" | "completed" };

export interface TodoStore {
  replace(sessionId: string, todos: Todo[]): Promise<void>;
}

const MARK: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

export function todoWriteTool(store: TodoStore) {
  return defineTool({
    name: "todo_write",
    kind: "think",
    description:
      "Replace this session's task list, which the people in the session see live. Use it for a task of three or more " +
      "steps, or when a person gives several things to do: list the steps, keep exactly one `in_progress`, and mark each " +
      "`completed` as soon as it is done (not in a batch at the end). Skip it for a single simple step or a question. " +
      "Send the whole list every time.",
    input: z.object({
      todos: z
        .array(
          z.object({
            id: z.string().min(1).max(100),
            content: z.string().min(1).max(500),
            status: z.enum(["pending", "in_progress", "completed"]),
          }),
        )
        .max(100)
        .refine((todos) => new Set(todos.map((t) => t.id)).size === todos.length, {
          message: "each todo needs a distinct id",
        }),
    }),
    describe: (i) => `Update tasks (${i.todos.filter((t) => t.status === "completed").length}/${i.todos.length} done)`,
    async execute(i, ctx) {
      await store.replace(ctx.sessionId, i.todos);
      const text = i.todos.map((t) => `${MARK[t.status]} ${t.content}`).join("\n") || "(no tasks)";
      return ok(`Task list updated:\n${text}`, {
        kind: "markdown",
        text: i.todos.map((t) => `- ${MARK[t.status]} ${t.content}`).join("\n"),
      });
    },
  });
}
