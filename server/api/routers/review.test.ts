import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldModelMessages } from "@/lib/model-transcript";
import { foldTranscript } from "@/lib/session-transcript";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// The Changes view and checkpoint restore through the API: a real agent turn (scripted model, the
// harness's `write` and `run` tools) changes files, a real git checkpoint store records the turn,
// and the review decisions land on disk and in the session's log.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
beforeAll(async () => {
  h = await createAgentHarness();
  root = h.env.services.files.pathOf(h.project.id);
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
});
afterAll(() => h.dispose());

const numbered = (edits: Record<number, string> = {}) =>
  `${Array.from({ length: 20 }, (_, i) => edits[i + 1] ?? `line ${i + 1}`).join("\n")}\n`;
const disk = (name: string) => readFile(path.join(root, name), "utf8");
const exists = (name: string) =>
  stat(path.join(root, name)).then(
    () => true,
    () => false,
  );
const write = (id: string, file: string, content: string) => ({
  id,
  name: "write",
  arguments: { path: file, content },
});

async function seed(files: Record<string, string>) {
  const workspace = await h.env.services.files.open(h.project.id);
  for (const [name, content] of Object.entries(files)) {
    await workspace.write(name, content).catch(() => workspace.create(name, content));
  }
}

describe("review and checkpoints", () => {
  let sessionId: string;

  it("takes one checkpoint before the first change of a turn, none for a turn that only reads", async () => {
    await seed({ "a.txt": numbered(), "b.txt": "alpha\nbeta\n" });
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "r1", name: "echo", arguments: { text: "looking" } }] },
        {
          match: "echo: looking",
          toolCalls: [
            write("w1", "a.txt", numbered({ 2: "line 2 changed", 15: "line 15 changed" })),
            write("w2", "b.txt", "alpha\nBETA\n"),
          ],
        },
        { match: "wrote b.txt", text: "Changed a.txt twice and b.txt once." },
        {
          match: "Only read",
          text: "Read only.",
          toolCalls: [{ id: "r2", name: "echo", arguments: { text: "again" } }],
        },
        { match: "echo: again", text: "Nothing changed." },
      ],
    });
    sessionId = session.id;
    let events = await h.send(sessionId, "Change the files");
    const checkpoints = only(events, "checkpoint");
    expect(checkpoints).toHaveLength(1);
    const firstWrite = events.find((e) => e.type === "tool_call" && e.payload.toolCallId === "w1")!;
    expect(checkpoints[0]!.seq).toBeGreaterThan(firstWrite.seq);
    expect(checkpoints[0]!.seq).toBeLessThan(
      events.find((e) => e.type === "tool_result" && e.payload.toolCallId === "w1")!.seq,
    );
    expect(checkpoints[0]!.payload.turnId).toBe(only(events, "turn_started")[0]!.payload.turnId);

    events = await h.send(sessionId, "Only read this time");
    expect(only(events, "checkpoint")).toHaveLength(1);
    // The store lives under the data directory, not in the project.
    expect(await exists(".git")).toBe(false);
    expect((await stat(path.join(h.env.dataDir, "checkpoints", h.project.id))).isDirectory()).toBe(true);
  });

  it("lists the changed files with their hunks, and a file's two sides", async () => {
    const { files } = await h.caller.review.changes({ sessionId });
    expect(files.map((f) => [f.path, f.status, f.hunks, f.added, f.removed])).toEqual([
      ["a.txt", "modified", 2, 2, 2],
      ["b.txt", "modified", 1, 1, 1],
    ]);
    const file = await h.caller.review.file({ sessionId, path: "a.txt" });
    expect(file.original).toBe(numbered());
    expect(file.current).toBe(await disk("a.txt"));
    expect(file.hunks.map((hunk) => hunk.newStart)).toEqual([1, 12]);
  });

  it("rejects a hunk on disk, refuses a stale version, and accepts the rest", async () => {
    const before = await h.caller.review.file({ sessionId, path: "a.txt" });
    await h.caller.review.rejectHunk({ sessionId, path: "a.txt", hunkIndex: 0, expectedVersion: before.version });
    expect(await disk("a.txt")).toBe(numbered({ 15: "line 15 changed" }));

    await expect(
      h.caller.review.acceptHunk({ sessionId, path: "a.txt", hunkIndex: 0, expectedVersion: before.version }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(h.caller.review.rejectHunk({ sessionId, path: "a.txt", hunkIndex: 5 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });

    const after = await h.caller.review.file({ sessionId, path: "a.txt" });
    expect(after.hunks).toHaveLength(1);
    await h.caller.review.acceptHunk({ sessionId, path: "a.txt", hunkIndex: 0, expectedVersion: after.version });
    await h.caller.review.acceptFile({ sessionId, path: "b.txt" });
    expect((await h.caller.review.changes({ sessionId })).files).toEqual([]);
    // Accepting touches nothing on disk, and is in the log.
    expect(await disk("a.txt")).toBe(numbered({ 15: "line 15 changed" }));
    expect(await disk("b.txt")).toBe("alpha\nBETA\n");
    const bases = only(await h.events(sessionId), "review_base");
    expect(bases.map((e) => [e.payload.path, e.payload.action])).toEqual([
      ["a.txt", "accept_hunk"],
      ["b.txt", "accept_file"],
    ]);
    // The first checkpoint still shows the whole turn.
    const [first] = (await h.caller.checkpoint.list({ sessionId })).checkpoints;
    expect(
      (await h.caller.review.changes({ sessionId, sinceCheckpointId: first!.checkpointId })).files.map((f) => f.path),
    ).toEqual(["a.txt", "b.txt"]);
  });

  it("rejects a whole file, and a file the agent created goes away", async () => {
    h.model.add(
      { match: "Add c", toolCalls: [write("w3", "c.txt", "new file\n"), write("w4", "b.txt", "alpha\nbeta\ngamma\n")] },
      { match: "wrote b.txt", text: "Added c.txt." },
    );
    await h.send(sessionId, "Add c.txt");
    const { files } = await h.caller.review.changes({ sessionId });
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ["b.txt", "modified"],
      ["c.txt", "added"],
    ]);
    await h.caller.review.rejectFile({ sessionId, path: "c.txt" });
    expect(await exists("c.txt")).toBe(false);
    await expect(
      h.caller.review.rejectFile({ sessionId, path: "b.txt", expectedVersion: "stale" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("previews and restores a turn's checkpoint, rewinds the conversation, and undoes it", async () => {
    const { checkpoints } = await h.caller.checkpoint.list({ sessionId });
    expect(checkpoints.map((c) => c.request)).toEqual(["Change the files", "Add c.txt"]);
    const first = checkpoints[0]!;
    const preview = await h.caller.checkpoint.preview({ sessionId, checkpointId: first.checkpointId });
    expect(preview.files.map((f) => [f.path, f.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "modified"],
    ]);

    const beforeRestore = { a: await disk("a.txt"), b: await disk("b.txt") };
    const changesBefore = await h.caller.review.changes({ sessionId });
    expect(changesBefore.files.map((f) => f.path)).toEqual(["b.txt"]);
    const { undoId } = await h.caller.checkpoint.restore({
      sessionId,
      checkpointId: first.checkpointId,
      rewindConversation: true,
    });
    expect(await disk("a.txt")).toBe(numbered());
    expect(await disk("b.txt")).toBe("alpha\nbeta\n");
    // The review goes back with the files: nothing the agent did is left to review.
    expect(await h.caller.review.changes({ sessionId })).toEqual({ baseId: first.checkpointId, files: [] });

    let events = await h.events(sessionId);
    expect(only(events, "restore")[0]!.payload).toMatchObject({
      checkpointId: first.checkpointId,
      undoId,
      rewound: true,
      files: ["a.txt", "b.txt"],
    });
    // Hidden from the model, collapsed for people, still in the log.
    expect(foldModelMessages(events)).toEqual([]);
    const transcript = foldTranscript(events);
    expect(transcript.items.map((i) => i.kind)).toEqual(["rewound", "restore"]);
    const group = transcript.items[0]!;
    expect(group.kind === "rewound" && group.items.filter((i) => i.kind === "user").length).toBe(3);

    await h.caller.checkpoint.undoRestore({ sessionId, undoId });
    expect(await h.caller.review.changes({ sessionId })).toEqual(changesBefore);
    expect(await disk("a.txt")).toBe(beforeRestore.a);
    expect(await disk("b.txt")).toBe(beforeRestore.b);
    events = await h.events(sessionId);
    expect(foldModelMessages(events).filter((m) => m.role === "user").length).toBeGreaterThanOrEqual(3);
    expect(foldTranscript(events).items.some((i) => i.kind === "rewound")).toBe(false);
    expect(foldTranscript(events).items.find((i) => i.kind === "restore")).toMatchObject({ undone: true });
    await expect(h.caller.checkpoint.undoRestore({ sessionId, undoId })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("tells the model about a restore that kept the conversation", async () => {
    const { checkpoints } = await h.caller.checkpoint.list({ sessionId });
    await h.caller.checkpoint.restore({ sessionId, checkpointId: checkpoints[1]!.checkpointId });
    const messages = foldModelMessages(await h.events(sessionId));
    expect(JSON.stringify(messages.at(-1))).toContain("restored the project's files");
    expect(await disk("b.txt")).toBe("alpha\nBETA\n");
  });

  it("refuses to restore while a turn waits, and unknown checkpoints", async () => {
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    h.model.add({ match: "Write more", toolCalls: [write("w5", "d.txt", "d\n")] });
    await h.send(sessionId, "Write more");
    expect(await h.status(sessionId)).toBe("waiting_approval");
    const { checkpoints } = await h.caller.checkpoint.list({ sessionId });
    await expect(
      h.caller.checkpoint.restore({ sessionId, checkpointId: checkpoints[0]!.checkpointId }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(h.caller.checkpoint.preview({ sessionId, checkpointId: "0".repeat(40) })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(h.caller.review.file({ sessionId, path: "../outside.txt" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await h.caller.session.cancel({ sessionId });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  });

  it("leaves out files only people changed between the agent's turns", async () => {
    await seed({ "mine.txt": "a person's notes\n", "shared.txt": numbered() });
    const session = await h.newSession({
      replies: [
        { match: "Edit shared", toolCalls: [write("s1", "shared.txt", numbered({ 3: "agent line 3" }))] },
        { match: "wrote shared.txt", text: "Edited." },
        { match: "Add new", toolCalls: [write("s2", "new.txt", "agent's new file\n")] },
        { match: "wrote new.txt", text: "Added." },
      ],
    });
    await h.send(session.id, "Edit shared");
    const finished = only(await h.events(session.id), "turn_finished");
    expect(finished[0]!.payload.endCheckpointId).toMatch(/^[0-9a-f]{40}$/);

    // Between turns a person edits their own file, and the agent's file too.
    const workspace = await h.env.services.files.open(h.project.id);
    await workspace.write("mine.txt", "a person's notes, edited\n");
    await workspace.write("shared.txt", numbered({ 3: "agent line 3", 18: "a person's line 18" }));
    await h.send(session.id, "Add new");

    // Each turn that changed files has its own checkpoint, also when the one before it had one.
    expect(only(await h.events(session.id), "checkpoint")).toHaveLength(2);
    const { files } = await h.caller.review.changes({ sessionId: session.id });
    expect(files.map((f) => f.path)).toEqual(["new.txt", "shared.txt"]);
    // In a file the agent changed, everything since the base is shown (the person's line too).
    expect(files.find((f) => f.path === "shared.txt")!.hunks).toBe(2);
    expect(await disk("mine.txt")).toBe("a person's notes, edited\n");
  });

  it("reports nothing to review in a session that changed nothing", async () => {
    const session = await h.newSession({ replies: [{ text: "Just talking." }] });
    await h.send(session.id, "Hello");
    expect(await h.caller.review.changes({ sessionId: session.id })).toEqual({ baseId: null, files: [] });
    expect((await h.caller.checkpoint.list({ sessionId: session.id })).checkpoints).toEqual([]);
    await expect(h.caller.review.file({ sessionId: session.id, path: "a.txt" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});
