import { describe, expect, it } from "vitest";
import { databaseForFile, seedProject } from "@/server/test/database";
import { admitStep, releaseHold, setBudget } from "./budgets";

// The decision that must not race: many steps asking at once against a nearly spent budget.

const database = databaseForFile();

async function world(spent: number) {
  const db = database.db;
  const projectId = await seedProject(db).catch(async () => (await db.project.findFirstOrThrow()).id);
  const { teamId } = await db.project.findUniqueOrThrow({ where: { id: projectId }, select: { teamId: true } });
  const userId = `person-${crypto.randomUUID()}`;
  await db.user.create({ data: { id: userId, name: "P", email: `${userId}@example.com` } });
  await db.usageEntry.create({
    data: {
      sessionId: crypto.randomUUID(),
      projectId,
      teamId,
      userId,
      model: "m",
      inputTokens: 1,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      costUsd: spent,
    },
  });
  return { teamId, userId };
}

const since = new Date(Date.UTC(2000, 0, 1));

describe("budget admission", () => {
  it("reaches a budget that a sum of float costs lands a hair below", async () => {
    const { userId, teamId } = await world(0);
    await setBudget(database.db, { userId }, 10, userId);
    for (let i = 0; i < 99; i++)
      await database.db.usageEntry.create({
        data: {
          sessionId: "s",
          projectId: "p",
          teamId,
          userId,
          model: "m",
          inputTokens: 1,
          outputTokens: 0,
          cachedInputTokens: 0,
          reasoningTokens: 0,
          costUsd: 0.1,
        },
      });
    const step = { teamId, userId, since, holdUsd: 0.1, now: new Date(), priced: true };
    expect((await admitStep(database.db, step)).ok).toBe(true);
    expect((await admitStep(database.db, step)).ok).toBe(false);
  });

  it("counts the holds of steps running now: of fifty asking at once at 99%, one is let through", async () => {
    const { userId, teamId } = await world(9.9);
    await setBudget(database.db, { userId }, 10, userId);
    const step = { teamId, userId, since, holdUsd: 0.2, now: new Date(), priced: true };
    const decisions = await Promise.all(Array.from({ length: 50 }, () => admitStep(database.db, step)));
    expect(decisions.filter((d) => d.ok)).toHaveLength(1);
    const refused = decisions.find((d) => !d.ok);
    expect(refused).toMatchObject({ ok: false, scope: "person", budget: { spentUsd: 9.9, heldUsd: 0.2 } });
    // Once the step's hold is let go, the next may go.
    const admitted = decisions.find((d) => d.ok);
    await releaseHold(database.db, (admitted as { holdId: string }).holdId);
    expect((await admitStep(database.db, step)).ok).toBe(true);
  });

  it("does not count a hold older than its lifetime (a step whose instance died)", async () => {
    const { userId, teamId } = await world(9.9);
    await setBudget(database.db, { userId }, 10, userId);
    const step = { teamId, userId, since, holdUsd: 0, now: new Date(), priced: true };
    const hold = await database.db.budgetHold.create({ data: { teamId, userId, amountUsd: 5 } });
    expect((await admitStep(database.db, step)).ok).toBe(false);
    await database.db.budgetHold.update({
      where: { id: hold.id },
      data: { createdAt: new Date(Date.now() - 3_600_000) },
    });
    expect((await admitStep(database.db, step)).ok).toBe(true);
  });
});
