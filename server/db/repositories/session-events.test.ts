import { describe, expect, it } from "vitest";
import { databaseForFile, seedProject } from "@/server/test/database";
import { createSession } from "./sessions";
import { insertEvents, lastSeq, listEvents, SeqTakenError, type NewEventRow } from "./session-events";

// Event rows are written in raw SQL (one statement over arrays): what is read back must be what
// was written, whatever the text holds, and a seq someone else took must be told apart from other failures.

let sessionId: string;
const database = databaseForFile(async (db) => {
  sessionId = (await createSession(db, { projectId: await seedProject(db), title: "S", authorId: "ann", model: "m" }))
    .id;
});

describe("session event rows", () => {
  it("read back exactly as written, several in one statement", async () => {
    const tricky = 'quotes " and \\ backslashes, {braces}, commas, "null", émoji 🚀, a NUL-free \n newline';
    const rows: NewEventRow[] = [
      {
        sessionId,
        seq: 1,
        type: "user_message",
        payload: { text: tricky, authorName: "Ann" },
        authorId: "ann",
        createdAt: new Date("2026-11-24T13:14:15.678Z"),
      },
      {
        sessionId,
        seq: 2,
        type: "turn_started",
        payload: { turnId: "t1", model: "m", resumed: false },
        authorId: null,
        createdAt: new Date("2026-11-24T13:14:15.999Z"),
      },
      {
        sessionId,
        seq: 3,
        type: "assistant_delta",
        payload: { turnId: "t1", stepId: "t1:1", text: "" },
        authorId: null,
        createdAt: new Date("2026-11-24T13:14:16.000Z"),
      },
    ];
    await insertEvents(database.db, rows);
    expect(await listEvents(database.db, sessionId)).toEqual(rows);
    expect(await lastSeq(database.db, sessionId)).toBe(3);
  });

  it("refuse a seq that is taken with SeqTakenError, writing none of the statement's rows", async () => {
    const at = new Date();
    const attempt = insertEvents(database.db, [
      { sessionId, seq: 4, type: "status", payload: { status: "running" }, authorId: null, createdAt: at },
      { sessionId, seq: 2, type: "status", payload: { status: "idle" }, authorId: null, createdAt: at },
    ]);
    await expect(attempt).rejects.toBeInstanceOf(SeqTakenError);
    expect(await lastSeq(database.db, sessionId)).toBe(3);

    // Another failure (no such session) is not mistaken for a taken seq.
    const orphan = insertEvents(database.db, [
      {
        sessionId: crypto.randomUUID(),
        seq: 1,
        type: "status",
        payload: { status: "idle" },
        authorId: null,
        createdAt: at,
      },
    ]);
    await expect(orphan).rejects.not.toBeInstanceOf(SeqTakenError);
  });
});
