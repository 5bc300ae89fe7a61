import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, seedProject } from "@/server/test/database";
import { createScheduler, type Scheduler } from "@/server/services/scheduler";

// When the scheduler's worker (pg-boss, which keeps a Postgres connection polling) runs: a server
// with nothing scheduled does without it; a task scheduled, or found at start, brings it up, and a
// task scheduled before a restart still fires after it.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let projectId: string;
let admin: pg.Client;

/** The scheduler's own connections to this database, by the name pg-boss gives them. */
async function schedulerConnections(): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tandem-scheduler'",
  );
  return Number(rows[0]!.n);
}

function scheduler(fired: string[] = []): Scheduler {
  return createScheduler({
    db: database.db,
    databaseUrl: database.url,
    pollingIntervalSeconds: 0.5,
    run: async (task) => {
      fired.push(task.taskPayload);
      return { sessionId: null as unknown as string };
    },
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  projectId = await seedProject(database.db);
  // A run acts for whoever scheduled it, so they are a member who may run the agent.
  const { teamId } = (await database.db.project.findUniqueOrThrow({ where: { id: projectId } })) as { teamId: string };
  await database.db.teamMember.create({ data: { teamId, userId: "ann", role: "member" } });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterAll(async () => {
  await admin.end();
  await database.drop();
});

describe("the scheduler's worker", () => {
  it("is not started with nothing scheduled, starts with the first task, and a restart brings it back for that task, which fires", async () => {
    const first = scheduler();
    await first.boot();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await schedulerConnections()).toBe(0);

    await first.tool.schedule(
      { projectId, sessionId: "s", userId: "ann" },
      { taskPayload: "after the restart", timeExpression: "in 3 seconds", description: "ping" },
    );
    expect(await schedulerConnections()).toBeGreaterThan(0);
    await first.stop();
    await expect.poll(schedulerConnections, { timeout: 10_000 }).toBe(0);

    const fired: string[] = [];
    const second = scheduler(fired);
    try {
      await second.boot();
      expect(await schedulerConnections()).toBeGreaterThan(0);
      await expect.poll(() => fired, { timeout: 20_000 }).toEqual(["after the restart"]);
    } finally {
      await second.stop();
    }
  });

  it("starts at once in a cluster, where it also runs the jobs of instances that died", async () => {
    await database.db.scheduledTask.updateMany({ data: { status: "done" } });
    const clustered = scheduler();
    try {
      await clustered.boot({ always: true });
      expect(await schedulerConnections()).toBeGreaterThan(0);
    } finally {
      await clustered.stop();
    }
  });
});
