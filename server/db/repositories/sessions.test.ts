import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { createTestDatabase } from "@/server/test/database";
import { createSession, findSession, setSessionStatus } from "./sessions";

let db: Db;
let projectId: string;
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});
beforeAll(async () => {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  db = database.db;
  await db.user.create({ data: { id: "ann", name: "Ann", email: "ann@example.com" } });
  const team = await db.team.create({ data: { name: "Crew" } });
  projectId = (await db.project.create({ data: { name: "Shop", ownerId: "ann", teamId: team.id } })).id;
});

describe("a session's status", () => {
  it("changes once, says whether it changed, and moves updatedAt to now (UTC, as Prisma writes it)", async () => {
    const session = await createSession(db, { projectId, title: "S", authorId: "ann", model: "m" });
    await new Promise((r) => setTimeout(r, 20));
    const before = Date.now();
    expect(await setSessionStatus(db, session.id, "running")).toBe(true);
    const after = Date.now();
    const row = (await findSession(db, session.id))!;
    expect(row.status).toBe("running");
    expect(row.updatedAt.getTime()).toBeGreaterThan(session.updatedAt.getTime());
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(row.updatedAt.getTime()).toBeLessThanOrEqual(after + 1_000);

    expect(await setSessionStatus(db, session.id, "running")).toBe(false);
    expect(await setSessionStatus(db, crypto.randomUUID(), "idle")).toBe(false);
  });
});
