import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { BoardUpdate } from "@/server/services/session-board";
import { createAgentHarness } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";

// The sessions board through the API, on a real agent turn (scripted model, the real `shell` tool
// unsandboxed, a real checkpoint store): the row counts what the session changed and shows its last
// check with the exit code, and a board that is watching sees the session start, work and finish.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true, extensions: {} });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  const workspace = await h.env.services.files.open(h.project.id);
  await workspace.create("a.txt", "one\ntwo\nthree\n");
});
afterAll(() => h.dispose());

describe("sessions board", () => {
  it("streams a session's row as it starts, works and finishes, with its changes and last check", async () => {
    const controller = new AbortController();
    const updates: BoardUpdate[] = [];
    const watch = (async () => {
      const caller = createCallerFactory(appRouter)(h.env.context(h.user), { signal: controller.signal });
      const stream = await caller.board.watch({ projectId: h.project.id });
      for await (const update of stream) updates.push(update as BoardUpdate);
    })().catch(() => undefined);
    await until(() => updates.length > 0, "the board's first rows");
    expect(updates[0]).toEqual({ kind: "rows", rows: [] });

    const session = await h.newSession({
      replies: [
        {
          match: "Fix it",
          toolCalls: [{ id: "w", name: "write", arguments: { path: "a.txt", content: "one\nTWO\nthree\nfour\n" } }],
        },
        {
          match: "wrote a.txt",
          toolCalls: [{ id: "t", name: "shell", arguments: { command: "test -f missing.txt" } }],
        },
        { match: "Exit code: 1", text: "The check failed." },
      ],
    });
    await until(() => updates.some((u) => u.kind === "row" && u.row.id === session.id), "the new session on the board");
    await h.send(session.id, "Fix it");
    const rows = () => updates.flatMap((u) => (u.kind === "row" && u.row.id === session.id ? [u.row] : []));
    await until(
      () => rows().some((r) => r.status === "idle" && r.check !== null && r.filesChanged === 1),
      "the finished session's row",
      10_000,
    );
    expect(rows().some((r) => r.status === "running")).toBe(true);
    const [row] = await h.caller.board.list({ projectId: h.project.id });
    expect(row).toMatchObject({
      id: session.id,
      authorId: h.user.id,
      authorName: h.user.name,
      status: "idle",
      waitingOn: null,
      filesChanged: 1,
      linesAdded: 2,
      linesRemoved: 1,
      check: { command: "test -f missing.txt", exitCode: 1 },
    });

    await h.caller.session.delete({ sessionId: session.id });
    await until(
      () => updates.some((u) => u.kind === "removed" && u.sessionId === session.id),
      "the deleted session to leave the board",
    );
    controller.abort();
    await watch;
  }, 60_000);
});
