import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseForFile, seedProject } from "@/server/test/database";
import { createSession, findSession } from "@/server/db/repositories/sessions";
import { insertEvents, listEvents } from "@/server/db/repositories/session-events";

// Statements sent straight to the pool (db.sql) and those sent through Prisma read and write the
// same rows the same way: a repository may move a statement from one to the other. Times are the
// trap: pg alone would write and read `timestamp` columns in the machine's time zone, Prisma in UTC.
// This file runs in a time zone far from UTC, where the two would disagree by hours.

const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = "America/Los_Angeles";
});
afterAll(() => {
  process.env.TZ = zone;
});

let projectId: string;
const database = databaseForFile(async (db) => {
  projectId = await seedProject(db);
});

describe("db.sql beside Prisma", () => {
  it("runs in a time zone where UTC and local time differ", () => {
    expect(new Date("2026-11-27T12:00:00Z").getTimezoneOffset()).not.toBe(0);
  });

  it("writes a time that Prisma reads back unchanged, and reads back one that Prisma wrote", async () => {
    const db = database.db;
    const session = await createSession(db, { projectId, title: "Times", authorId: "ann", model: "m" });
    const at = new Date("2026-11-27T23:30:00.125Z");
    await insertEvents(db, [
      {
        sessionId: session.id,
        seq: 1,
        type: "user_message",
        payload: { text: "hi", authorName: "Ann" },
        authorId: "ann",
        createdAt: at,
      },
    ]);
    const throughPrisma = await db.sessionEvent.findFirstOrThrow({ where: { sessionId: session.id, seq: 1 } });
    expect(throughPrisma.createdAt.toISOString()).toBe(at.toISOString());

    const written = new Date("2026-06-01T00:15:00.500Z");
    await db.sessionEvent.create({
      data: { sessionId: session.id, seq: 2, type: "status", payload: { status: "idle" }, createdAt: written },
    });
    const [, second] = await listEvents(db, session.id);
    expect(second!.createdAt.toISOString()).toBe(written.toISOString());
    // Arrays of times too.
    const [row] = await db.sql<{
      times: Date[];
    }>`SELECT array_agg("createdAt" ORDER BY seq) AS times FROM session_event WHERE "sessionId" = ${session.id}`;
    expect(row!.times.map((t) => t.toISOString())).toEqual([at.toISOString(), written.toISOString()]);
  });

  it("creates a session exactly as Prisma reads it, with the schema's defaults", async () => {
    const db = database.db;
    const before = Date.now();
    const created = await createSession(db, {
      projectId,
      title: "Defaults",
      authorId: "ann",
      model: "openai:gpt-5",
      allowedTools: ["read_file"],
      maxSteps: 7,
    });
    expect(await findSession(db, created.id)).toEqual(created);
    expect(created).toMatchObject({
      status: "idle",
      allowRules: [],
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      approvalsBy: "team",
      allowedTools: ["read_file"],
      maxSteps: 7,
      parentId: null,
    });
    expect(created.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(created.createdAt.getTime()).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("sends every interpolated value as a parameter, never as SQL", async () => {
    const db = database.db;
    const title = `x'); DELETE FROM agent_session; --`;
    const created = await createSession(db, { projectId, title, authorId: "ann", model: "m" });
    expect((await findSession(db, created.id))?.title).toBe(title);
    expect(await db.agentSession.count()).toBeGreaterThan(1);
  });
});
