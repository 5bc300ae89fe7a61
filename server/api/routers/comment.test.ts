import { symlink } from "node:fs/promises";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { addMember } from "@/server/db/repositories/teams";
import { reviewMessage, touchesLine } from "@/server/services/review-comments";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";

// Review comments through the API, on a real agent session (scripted model, the harness's `write`
// tool, a real checkpoint store): who may write and read them, "Send review" reaching the model as
// one message, and a comment marked addressed once the agent's next turn changes its line.

const createCaller = createCallerFactory(appRouter);
let h: Awaited<ReturnType<typeof createAgentHarness>>;
let viewer: ReturnType<typeof createCaller>;
let stranger: ReturnType<typeof createCaller>;

const numbered = (edits: Record<number, string> = {}) =>
  `${Array.from({ length: 20 }, (_, i) => edits[i + 1] ?? `line ${i + 1}`).join("\n")}\n`;
const write = (id: string, content: string) => ({ id, name: "write", arguments: { path: "a.txt", content } });
const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );

beforeAll(async () => {
  h = await createAgentHarness();
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  const db = h.env.services.db;
  const viewerUser = await h.env.createUser();
  await addMember(db, h.project.teamId, viewerUser.id, "viewer");
  viewer = createCaller(h.env.context(viewerUser));
  stranger = createCaller(h.env.context(await h.env.createUser()));
  const workspace = await h.env.services.files.open(h.project.id);
  await workspace.create("a.txt", numbered());
});
afterAll(() => h.dispose());

describe("review comments", () => {
  let sessionId: string;

  beforeAll(async () => {
    const session = await h.newSession({
      replies: [
        { match: "Rename things", toolCalls: [write("w1", numbered({ 5: "five", 15: "fifteen" }))] },
        { match: "wrote a.txt", text: "Renamed lines 5 and 15." },
        { match: "Review comments on your changes", toolCalls: [write("w2", numbered({ 5: "FIVE", 15: "fifteen" }))] },
        { match: "wrote a.txt", text: "Line 5 is upper case now." },
      ],
    });
    sessionId = session.id;
    await h.send(sessionId, "Rename things");
  });

  it("lets writers comment and the team read; viewers, view links and strangers cannot comment, strangers cannot read", async () => {
    const link = await h.caller.share.create({ sessionId, scope: "view", label: "guest" });
    const guest = createCaller({ ...h.env.context(null), shareToken: link.token } satisfies Context);
    const comment = { sessionId, path: "a.txt", line: 5, side: "current" as const, body: "Make it upper case." };

    expect(await code(viewer.comment.add(comment))).toBe("FORBIDDEN");
    expect(await code(guest.comment.add(comment))).toBe("FORBIDDEN");
    expect(await code(stranger.comment.add(comment))).toBe("NOT_FOUND");
    expect(await code(viewer.comment.send({ sessionId }))).toBe("FORBIDDEN");
    expect(await code(stranger.comment.list({ sessionId }))).toBe("NOT_FOUND");

    const added = await h.caller.comment.add(comment);
    expect(added).toMatchObject({ path: "a.txt", line: 5, side: "current", lineText: "five", sentAt: null });
    await h.caller.comment.add({ ...comment, line: 15, body: "Keep this one." });
    expect((await viewer.comment.list({ sessionId })).map((c) => c.line)).toEqual([5, 15]);
    expect((await guest.comment.list({ sessionId })).map((c) => c.line)).toEqual([5, 15]);
    // Only its author deletes a comment.
    expect(await code(viewer.comment.delete({ sessionId, commentId: added.id }))).toBe("FORBIDDEN");
  });

  it("refuses a line the file does not have, a path outside, and a link out of the workspace", async () => {
    const past = h.caller.comment.add({ sessionId, path: "a.txt", line: 99, side: "current", body: "?" });
    await expect(past).rejects.toThrow(/there is no line 99/);
    const outside = h.caller.comment.add({ sessionId, path: "../etc/passwd", line: 1, side: "current", body: "?" });
    expect(await code(outside)).toBe("BAD_REQUEST");
    // A planted link: its target's lines are never read into a comment (a link has no text lines here).
    await symlink("/etc/passwd", path.join(h.env.services.files.pathOf(h.project.id), "planted.txt"));
    const planted = h.caller.comment.add({ sessionId, path: "planted.txt", line: 1, side: "current", body: "?" });
    expect(await code(planted)).toBe("BAD_REQUEST");
    expect((await h.caller.comment.list({ sessionId })).some((c) => c.lineText.includes("root:"))).toBe(false);
  });

  it("deletes a comment only for its author, and only in its own session", async () => {
    const member = await h.env.createUser();
    await addMember(h.env.services.db, h.project.teamId, member.id, "member");
    const memberCaller = createCaller(h.env.context(member));
    const mine = await h.caller.comment.add({ sessionId, path: "a.txt", line: 1, side: "current", body: "Mine." });
    expect(await code(memberCaller.comment.delete({ sessionId, commentId: mine.id }))).toBe("NOT_FOUND");
    const other = await h.caller.session.create({ projectId: h.project.id });
    expect(await code(h.caller.comment.delete({ sessionId: other.id, commentId: mine.id }))).toBe("NOT_FOUND");
    await h.caller.comment.delete({ sessionId, commentId: mine.id });
    expect((await h.caller.comment.list({ sessionId })).map((c) => c.id)).not.toContain(mine.id);
  });

  it("sends the open comments as one message with file, line and text, and marks addressed the one whose line the next turn changed", async () => {
    const before = h.model.requests.length;
    const sent = await h.caller.comment.send({ sessionId });
    expect(sent.sent).toBe(2);
    await h.agent.idle(sessionId);

    const request = h.model.requests[before]!;
    const users = request.messages.filter((m) => m.role === "user");
    const last = String(users.at(-1)!.content);
    expect(last).toContain("Review comments on your changes (2)");
    expect(last).toContain("`a.txt` line 5: `five`");
    expect(last).toContain("> Make it upper case.");
    expect(last).toContain("`a.txt` line 15: `fifteen`");
    // One message: the session's log has one user message for the review.
    const messages = only(await h.events(sessionId), "user_message");
    expect(messages.filter((m) => m.payload.text.startsWith("Review comments"))).toHaveLength(1);

    let comments = await h.caller.comment.list({ sessionId });
    await until(
      async () => (comments = await h.caller.comment.list({ sessionId })).some((c) => c.addressedAt),
      "the comment on line 5 to be addressed",
      5_000,
    );
    expect(comments.find((c) => c.line === 5)!.addressedAt).toBeInstanceOf(Date);
    expect(comments.find((c) => c.line === 15)!.addressedAt).toBeNull();
    expect(comments.every((c) => c.sentAt)).toBe(true);
    // Sent comments are not sent again.
    expect((await h.caller.comment.send({ sessionId })).sent).toBe(0);
  });
});

describe("touchesLine", () => {
  const hunk = (oldStart: number, lines: string[]) => ({
    index: 0,
    oldStart,
    oldLines: lines.filter((l) => !l.startsWith("+")).length,
    newStart: oldStart,
    newLines: lines.filter((l) => !l.startsWith("-")).length,
    lines,
  });

  it("sees a replaced line, an insertion beside a line, and not a line further off", () => {
    const replaced = [hunk(3, [" c", "-d", "+D", " e"])];
    expect(touchesLine(replaced, 4)).toBe(true);
    expect(touchesLine(replaced, 3)).toBe(false);
    const inserted = [hunk(3, [" c", "+new", " d"])];
    expect(touchesLine(inserted, 3)).toBe(true);
    expect(touchesLine(inserted, 4)).toBe(true);
    expect(touchesLine(inserted, 6)).toBe(false);
  });

  it("quotes each comment with its file and line", () => {
    const text = reviewMessage([
      {
        id: "c",
        sessionId: "s",
        authorId: "u",
        authorName: "Ada",
        path: "src/a.ts",
        line: 7,
        side: "original",
        lineText: "  return 1;",
        body: "Why?",
        createdAt: new Date(),
        sentAt: null,
        addressedAt: null,
      },
    ]);
    expect(text).toContain(
      "1. `src/a.ts` line 7 of the file as it was before your changes: `return 1;` (Ada)\n   > Why?",
    );
  });
});
