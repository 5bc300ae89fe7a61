import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { createScheduler } from "@/server/services/scheduler";
import { listScheduledTasks } from "@/server/db/repositories/scheduled-tasks";

// A scheduled run starts a session written by whoever scheduled it, with that person's own
// secrets in its shell and their forge tokens behind its tools. Whoever lost that authority since
// (removed from the team, lowered to a viewer, their account disabled) must not keep acting
// through a schedule they left behind: their recurring task would go on running the project's
// code (which the team they left still writes) with their secrets, and writing as a viewer.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let projectId: string;
let teamId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  const team = await db.team.create({ data: { name: "Crew" } });
  teamId = team.id;
  for (const id of ["stays", "removed", "lowered", "disabled"]) {
    await db.user.create({ data: { id, name: id, email: `${id}@example.com` } });
    await db.teamMember.create({ data: { teamId, userId: id, role: "member" } });
  }
  projectId = (await db.project.create({ data: { name: "Shop", ownerId: "stays", teamId } })).id;
});

afterAll(async () => {
  await database.drop();
});

/** A scheduler whose runs only note, in `ran`, whom each task ran as. */
function recordingScheduler(ran: string[]) {
  return createScheduler({
    db: database.db,
    databaseUrl: database.url,
    pollingIntervalSeconds: 0.5,
    run: async (task) => {
      ran.push(task.createdById);
      return { sessionId: null as unknown as string };
    },
  });
}

it("runs a task only while the person who scheduled it may still run sessions in the project", async () => {
  const { db } = database;
  const ran: string[] = [];
  const scheduler = recordingScheduler(ran);
  try {
    for (const userId of ["stays", "removed", "lowered", "disabled"]) {
      await scheduler.tool.schedule(
        { projectId, sessionId: `s-${userId}`, userId },
        { taskPayload: `as ${userId}`, timeExpression: "in 3 seconds", description: userId },
      );
    }
    await db.teamMember.deleteMany({ where: { teamId, userId: "removed" } });
    await db.teamMember.updateMany({ where: { teamId, userId: "lowered" }, data: { role: "viewer" } });
    await db.user.update({ where: { id: "disabled" }, data: { disabledAt: new Date() } });
    await expect
      .poll(async () => (await listScheduledTasks(db, projectId)).every((t) => t.runs.length > 0), {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(true);
    expect(ran).toEqual(["stays"]);
    const tasks = await listScheduledTasks(db, projectId);
    for (const task of tasks.filter((t) => t.createdById !== "stays")) {
      expect(task.status).toBe("paused");
      expect(task.runs[0]?.sessionId).toBeNull();
      expect(task.runs[0]?.error).toMatch(/no longer/);
    }
    expect(tasks.find((t) => t.createdById === "stays")?.status).toBe("done");
  } finally {
    await scheduler.stop();
  }
}, 45_000);

// A task runs as whoever scheduled it. A teammate who resumes someone else's paused task would
// start it running as that person (their secrets in its shell, their forge tokens behind its
// tools), on the teammate's word: only the person who scheduled it may resume it.
it("does not let a teammate resume someone else's paused task", async () => {
  const { db } = database;
  await db.user.create({ data: { id: "teammate", name: "teammate", email: "teammate@example.com" } });
  await db.teamMember.create({ data: { teamId, userId: "teammate", role: "member" } });
  const ran: string[] = [];
  const scheduler = recordingScheduler(ran);
  try {
    const task = await scheduler.tool.schedule(
      { projectId, sessionId: "s-paused", userId: "stays" },
      { taskPayload: "as stays", timeExpression: "in 2 seconds", description: "paused one" },
    );
    await scheduler.pause(projectId, task.id);
    // Past its time: resumed, it runs a second later.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const answer = await scheduler.resume(projectId, task.id, "teammate").then(
      () => "resumed",
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(ran).toEqual([]);
    expect(answer).toMatch(/who scheduled it/);
    const after = (await listScheduledTasks(db, projectId)).find((t) => t.id === task.id);
    expect(after?.status).toBe("paused");
    // The person who scheduled it still may.
    expect(await scheduler.resume(projectId, task.id, "stays")).toMatchObject({ status: "active" });
  } finally {
    await scheduler.stop();
  }
}, 45_000);
