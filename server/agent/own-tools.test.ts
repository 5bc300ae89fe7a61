import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// note, todo_write and session_search as the agent uses them, through the scripted model.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("the runtime's own tools", () => {
  it("note: the agent writes a session note that people can then edit", async () => {
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ name: "note", arguments: { title: "Plan", content: "1. Read\n2. Fix" } }] },
        { match: "Saved note", text: "Noted." },
      ],
    });
    await h.send(session.id, "Plan the work");
    let got = await h.caller.session.get({ sessionId: session.id });
    expect(got.notes).toMatchObject([{ title: "Plan", content: "1. Read\n2. Fix", updatedById: null }]);
    await h.caller.session.saveNote({
      sessionId: session.id,
      noteId: got.notes[0]!.id,
      title: "Plan",
      content: "1. Read\n2. Fix\n3. Test",
    });
    got = await h.caller.session.get({ sessionId: session.id });
    expect(got.notes[0]).toMatchObject({ content: "1. Read\n2. Fix\n3. Test", updatedById: h.user.id });
  });

  it("todo_write: replaces the session's task list", async () => {
    const session = await h.newSession({
      replies: [
        {
          toolCalls: [
            {
              name: "todo_write",
              arguments: {
                todos: [
                  { id: "1", content: "Read", status: "in_progress" },
                  { id: "2", content: "Fix", status: "pending" },
                ],
              },
            },
          ],
        },
        {
          match: "Task list updated",
          toolCalls: [
            { name: "todo_write", arguments: { todos: [{ id: "1", content: "Read", status: "completed" }] } },
          ],
        },
        { match: "Task list updated", text: "Done." },
      ],
    });
    const events = await h.send(session.id, "Work in steps");
    expect(only(events, "tool_result")[0]!.payload.llm).toBe("Task list updated:\n[~] Read\n[ ] Fix");
    expect((await h.caller.session.get({ sessionId: session.id })).todos).toEqual([
      { id: "1", content: "Read", status: "completed" },
    ]);
  });

  it("session_search: finds earlier sessions of the project, best match first", async () => {
    const earlier = await h.newSession({
      replies: [{ text: "The flaky checkout test was fixed by mocking the payment gateway clock." }],
    });
    await h.send(earlier.id, "Why was the checkout test flaky?");
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ name: "session_search", arguments: { query: "flaky checkout test" } }] },
        { match: "session", text: "Found it." },
      ],
    });
    const events = await h.send(session.id, "How did we fix the flaky test?");
    const result = only(events, "tool_result")[0]!.payload;
    expect(result.ok).toBe(true);
    expect(result.llm).toContain(earlier.id);
    expect(result.llm).not.toContain(session.id);
    expect(result.llm.split("\n")[0]).toMatch(/\*\*checkout\*\*|\*\*flaky\*\*/);
  });
});
