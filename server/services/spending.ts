import type { TokenUsage } from "@/lib/session-events";
import type { TurnSpending } from "@/server/agent/turn-spending";
import type { Db } from "@/server/db/client";
import {
  admitStep,
  averageStepCost,
  budgetStates,
  claimWarning,
  releaseHold,
  type BudgetState,
} from "@/server/db/repositories/budgets";
import { findProject } from "@/server/db/repositories/projects";
import { findTeamName, listMembers } from "@/server/db/repositories/teams";
import { listAdmins, findUser } from "@/server/db/repositories/users";
import { recordUsageEntry } from "@/server/db/repositories/usage";

// Usage and budgets for the agent's turns (server/agent/turn-spending.ts): every model step is let
// through against its team's and person's monthly budgets (or refused with a message that names the
// budget and who can raise it), and its tokens and cost go into the usage ledger when it ends. At
// 80% of a budget its people are told once a month through BudgetNotices.

export const WARN_AT = 0.8;

/** Who is told that a budget reached 80%: its person, or the team's owners and admins and the person whose step crossed it. */
export type BudgetNotice = {
  scope: "team" | "person";
  /** The team's name or the person's email. */
  name: string;
  monthlyUsd: number;
  spentUsd: number;
  month: string;
  recipients: string[];
};

/** Where 80% notices go: the notifications inbox when it is wired in (compose-services.ts), else the server's log. */
export type BudgetNotices = { warn(notice: BudgetNotice): Promise<void> };

/** 80% notices into each recipient's inbox (server/services/notifications.ts), delivered as they chose. */
export function inboxBudgetNotices(notifications: {
  notify(personId: string, notice: { kind: "budget"; title: string; body?: string; link: string }): Promise<void>;
}): BudgetNotices {
  return {
    async warn(n) {
      const percent = Math.round((n.spentUsd / n.monthlyUsd) * 100);
      const title = `The ${n.scope} budget of ${n.name} is ${percent}% spent`;
      const body = `$${n.spentUsd.toFixed(2)} of $${n.monthlyUsd.toFixed(2)} in ${n.month}. At 100% new agent steps are refused until the month ends or an admin raises the budget.`;
      await Promise.all(
        n.recipients.map((personId) =>
          notifications
            .notify(personId, { kind: "budget", title, body, link: "/" })
            .catch((error: unknown) => console.error("budget notice:", error)),
        ),
      );
    },
  };
}

export const logBudgetNotices: BudgetNotices = {
  async warn(n) {
    console.warn(
      `budget: the ${n.scope} budget of ${n.name} reached ${Math.round((n.spentUsd / n.monthlyUsd) * 100)}% ($${n.spentUsd.toFixed(2)} of $${n.monthlyUsd.toFixed(2)}) in ${n.month}; telling ${n.recipients.length} people`,
    );
  },
};

export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
const monthOf = (now: Date) => now.toISOString().slice(0, 7);
const usd = (n: number) => `$${n.toFixed(2)}`;

export function createSpending(options: { db: Db; notices?: BudgetNotices; now?: () => Date }): TurnSpending {
  const { db, notices = logBudgetNotices, now = () => new Date() } = options;

  async function refusal(budget: BudgetState, scope: "team" | "person", unpriced: boolean): Promise<string> {
    const subject =
      scope === "team"
        ? `the team budget of ${(await teamName(budget.teamId!)) ?? "this team"}`
        : `your personal budget`;
    const admins = (await listAdmins(db)).map((a) => `${a.name} (${a.email})`);
    const ask = `ask ${admins.join(", ") || "an admin"}`;
    if (unpriced)
      return `Stopped: this session's model has no price, so ${subject} (${usd(budget.monthlyUsd)} a month) cannot count what it costs. Choose a model with a price, or have an admin of this Tandem set this model's price: ${ask}.`;
    const next = new Date(monthStart(now()));
    next.setUTCMonth(next.getUTCMonth() + 1);
    const held = budget.heldUsd > 0 ? ` and ${usd(budget.heldUsd)} held by turns running now` : "";
    return `Stopped: ${subject} (${usd(budget.monthlyUsd)} a month) is used up: ${usd(budget.spentUsd)} spent this month${held}. New turns start again on ${next.toISOString().slice(0, 10)}, or when an admin of this Tandem raises the budget: ${ask}.`;
  }

  const teamName = (teamId: string) => findTeamName(db, teamId);

  async function warnIfDue(teamId: string, userId: string) {
    const at = now();
    const month = monthOf(at);
    for (const budget of await budgetStates(db, [{ teamId }, { userId }], monthStart(at))) {
      if (budget.spentUsd < WARN_AT * budget.monthlyUsd) continue;
      if (!(await claimWarning(db, budget.id, month))) continue;
      const recipients = budget.teamId
        ? [
            ...new Set([
              ...(await listMembers(db, teamId))
                .filter((m) => m.role === "owner" || m.role === "admin")
                .map((m) => m.id),
              userId,
            ]),
          ]
        : [userId];
      await notices.warn({
        scope: budget.teamId ? "team" : "person",
        name: budget.teamId ? ((await teamName(teamId)) ?? teamId) : ((await findUser(db, userId))?.email ?? userId),
        monthlyUsd: budget.monthlyUsd,
        spentUsd: budget.spentUsd,
        month,
        recipients,
      });
    }
  }

  return {
    async admitStep(step) {
      const project = await findProject(db, step.projectId);
      if (!project) return { ok: false, message: "This session's project was deleted." };
      const since = monthStart(now());
      const decision = await admitStep(db, {
        teamId: project.teamId,
        userId: step.userId,
        since,
        holdUsd: await averageStepCost(db, project.teamId, since),
        now: now(),
        priced: step.priced,
      });
      if (!decision.ok)
        return { ok: false, message: await refusal(decision.budget, decision.scope, decision.unpriced === true) };
      const holdId = decision.holdId;
      return {
        ok: true,
        async settle(usage: TokenUsage, costUsd: number | null) {
          try {
            if (!usage.inputTokens && !usage.outputTokens) {
              if (holdId) await releaseHold(db, holdId);
              return;
            }
            await recordUsageEntry(
              db,
              {
                sessionId: step.sessionId,
                projectId: step.projectId,
                teamId: project.teamId,
                userId: step.userId,
                model: step.model,
                ...usage,
                costUsd,
              },
              holdId,
            );
            await warnIfDue(project.teamId, step.userId);
          } catch (error) {
            // The step's work stands; a lost ledger row only undercounts, and its hold lapses (HOLD_TTL_MS).
            console.error(`usage: could not record a step of session ${step.sessionId}:`, error);
          }
        },
      };
    },
  };
}
