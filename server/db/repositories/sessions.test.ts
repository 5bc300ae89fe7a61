import { describe, expect, it } from "vitest";
import { databaseForFile, seedProject } from "@/server/test/database";
import { createSession, findSession, setSessionStatus } from "./sessions";

let projectId: string;
const database = databaseForFile(async (db) => {
  projectId = await seedProject(db);
});

describe("a session's status", () => {
  it("changes once, says whether it changed, and moves updatedAt to now (UTC, as Prisma writes it)", async () => {
    const session = await createSession(database.db, { projectId, title: "S", authorId: "ann", model: "m" });
    await new Promise((r) => setTimeout(r, 20));
    const before = Date.now();
    expect(await setSessionStatus(database.db, session.id, "running")).toBe(true);
    const after = Date.now();
    const row = (await findSession(database.db, session.id))!;
    expect(row.status).toBe("running");
    expect(row.updatedAt.getTime()).toBeGreaterThan(session.updatedAt.getTime());
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(row.updatedAt.getTime()).toBeLessThanOrEqual(after + 1_000);

    expect(await setSessionStatus(database.db, session.id, "running")).toBe(false);
    expect(await setSessionStatus(database.db, crypto.randomUUID(), "idle")).toBe(false);
  });
});
