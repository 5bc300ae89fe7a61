import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

// Monthly budgets of teams and people, the holds of steps running now, and the one decision that
// must not race: whether a step may start. That decision takes a transaction-scoped advisory lock
// per budget, so of many turns started at once against a nearly spent budget each sees the holds of
// those let through before it.

export type BudgetSubject = { teamId: string } | { userId: string };
export type BudgetRow = {
  id: string;
  teamId: string | null;
  userId: string | null;
  monthlyUsd: number;
  warnedMonth: string | null;
  updatedAt: Date;
};

/** A hold older than this is a step whose instance died before recording it: no longer counted. */
export const HOLD_TTL_MS = 15 * 60 * 1000;

const select = { id: true, teamId: true, userId: true, monthlyUsd: true, warnedMonth: true, updatedAt: true } as const;

export async function listBudgets(db: Db): Promise<BudgetRow[]> {
  return db.budget.findMany({ select, orderBy: { updatedAt: "desc" } });
}

export async function findBudget(db: Db, subject: BudgetSubject): Promise<BudgetRow | null> {
  return db.budget.findFirst({ where: subject, select });
}

/** Sets (or with null removes) a budget; a changed amount may warn again this month. */
export async function setBudget(db: Db, subject: BudgetSubject, monthlyUsd: number | null, byId: string) {
  if (monthlyUsd === null) await db.budget.deleteMany({ where: subject });
  else
    await db.budget.upsert({
      where: "teamId" in subject ? { teamId: subject.teamId } : { userId: subject.userId },
      create: { ...subject, monthlyUsd, updatedById: byId },
      update: { monthlyUsd, updatedById: byId, warnedMonth: null },
    });
  await recordAudit(db, "budget.set", {
    teamId: "teamId" in subject ? subject.teamId : null,
    target: "userId" in subject ? subject.userId : null,
    detail: { monthlyUsd },
  });
}

/** What a budget's subject spent since `since` (the ledger) and what running steps hold now. */
export type BudgetState = BudgetRow & { spentUsd: number; heldUsd: number };

export type StepDecision =
  | { ok: true; holdId: string | null }
  | { ok: false; budget: BudgetState; scope: "team" | "person"; unpriced?: true };

/**
 * Lets a step of `userId` in `teamId` start, holding `holdUsd` against both budgets, unless one of
 * them is used up: what was spent since `since` plus what running steps hold reaches its amount.
 */
export async function admitStep(
  db: Db,
  step: { teamId: string; userId: string; since: Date; holdUsd: number; now: Date; priced: boolean },
): Promise<StepDecision> {
  const budgets = await db.budget.findMany({
    where: { OR: [{ teamId: step.teamId }, { userId: step.userId }] },
    select,
  });
  if (!budgets.length) return { ok: true, holdId: null };
  if (!step.priced) {
    const budget = budgets[0]!;
    const scope = budget.teamId ? ("team" as const) : ("person" as const);
    return { ok: false, budget: { ...budget, spentUsd: 0, heldUsd: 0 }, scope, unpriced: true };
  }
  const liveAfter = new Date(step.now.getTime() - HOLD_TTL_MS);
  return db.$transaction(
    async (tx) => {
      // Team before person, always in that order, so two deciders never wait on each other.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`budget:team:${step.teamId}`})), pg_advisory_xact_lock(hashtext(${`budget:user:${step.userId}`}))`;
      // Read after the lock: every step let through before this one has its hold committed.
      const [sums] = await tx.$queryRaw<
        Array<{ teamSpent: number; teamHeld: number; userSpent: number; userHeld: number }>
      >`SELECT
          (SELECT coalesce(sum("costUsd"), 0)::float8 FROM usage_entry WHERE "teamId" = ${step.teamId} AND "at" >= ${step.since}) AS "teamSpent",
          (SELECT coalesce(sum("amountUsd"), 0)::float8 FROM budget_hold WHERE "teamId" = ${step.teamId} AND "createdAt" > ${liveAfter}) AS "teamHeld",
          (SELECT coalesce(sum("costUsd"), 0)::float8 FROM usage_entry WHERE "userId" = ${step.userId} AND "at" >= ${step.since}) AS "userSpent",
          (SELECT coalesce(sum("amountUsd"), 0)::float8 FROM budget_hold WHERE "userId" = ${step.userId} AND "createdAt" > ${liveAfter}) AS "userHeld"`;
      for (const budget of budgets) {
        const team = budget.teamId !== null;
        const state = {
          ...budget,
          spentUsd: Number(team ? sums!.teamSpent : sums!.userSpent),
          heldUsd: Number(team ? sums!.teamHeld : sums!.userHeld),
        };
        if (micros(state.spentUsd + state.heldUsd) >= micros(budget.monthlyUsd))
          return { ok: false, budget: state, scope: team ? ("team" as const) : ("person" as const) };
      }
      const hold = await tx.budgetHold.create({
        data: { teamId: step.teamId, userId: step.userId, amountUsd: step.holdUsd },
        select: { id: true },
      });
      return { ok: true, holdId: hold.id };
    },
    // Many steps started at once queue on the lock: each waits its turn rather than failing.
    { maxWait: 30_000, timeout: 60_000 },
  );
}

/** Amounts compared in millionths of a dollar: a sum of float costs lands a hair below the amount it reaches. */
const micros = (usd: number) => Math.round(usd * 1_000_000);

export async function releaseHold(db: Db, holdId: string): Promise<void> {
  await db.budgetHold.deleteMany({ where: { id: holdId } });
}

/** What a step usually costs in this team this month: the hold a new step takes. */
export async function averageStepCost(db: Db, teamId: string, since: Date): Promise<number> {
  const found = await db.usageEntry.aggregate({
    where: { teamId, at: { gte: since }, costUsd: { not: null } },
    _avg: { costUsd: true },
  });
  return found._avg.costUsd ?? 0;
}

/** Budgets of this team and person with what was spent since `since`. */
export async function budgetStates(db: Db, subjects: BudgetSubject[], since: Date): Promise<BudgetState[]> {
  if (!subjects.length) return [];
  const budgets = await db.budget.findMany({ where: { OR: subjects }, select });
  return Promise.all(
    budgets.map(async (budget) => {
      const who = budget.teamId ? { teamId: budget.teamId } : { userId: budget.userId! };
      const spent = await db.usageEntry.aggregate({ where: { ...who, at: { gte: since } }, _sum: { costUsd: true } });
      return { ...budget, spentUsd: spent._sum.costUsd ?? 0, heldUsd: 0 };
    }),
  );
}

/** True once per budget and month: the caller sends the 80% notice. */
export async function claimWarning(db: Db, budgetId: string, month: string): Promise<boolean> {
  const { count } = await db.budget.updateMany({
    where: { id: budgetId, OR: [{ warnedMonth: null }, { warnedMonth: { not: month } }] },
    data: { warnedMonth: month },
  });
  return count === 1;
}
