import type { UsageRowView } from "@/lib/usage";
import type { Db } from "@/server/db/client";
import { budgetStates, listBudgets, setBudget, type BudgetSubject } from "@/server/db/repositories/budgets";
import { listModelSettings } from "@/server/db/repositories/agent-settings";
import { findTeamName, listAllTeams } from "@/server/db/repositories/teams";
import { findUserByEmail, findUserEmails } from "@/server/db/repositories/users";
import { usageRows } from "@/server/db/repositories/usage";
import { monthStart } from "@/server/services/spending";

// What the usage pages show: the ledger summed by day, team, project, person and model; budgets
// with what was spent this month; the prices per model that turn tokens into cost.

const DAY_MS = 86_400_000;
/** A report covers at most this many days (a year and a day). */
export const MAX_REPORT_DAYS = 366;

export class UsageError extends Error {}

function range(input: { from?: Date; to?: Date }, now: Date) {
  const from = input.from ?? monthStart(now);
  const to = input.to ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
  if (to <= from) throw new UsageError("The range ends before it starts.");
  if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * DAY_MS)
    throw new UsageError(`A report covers at most ${MAX_REPORT_DAYS} days: choose a shorter range.`);
  return { from, to };
}

export function createUsageReport(db: Db, now: () => Date = () => new Date()) {
  return {
    async rows(input: {
      from?: Date;
      to?: Date;
      teamId?: string;
    }): Promise<{ from: Date; to: Date; rows: UsageRowView[] }> {
      const r = range(input, now());
      return { ...r, rows: await usageRows(db, { ...r, ...(input.teamId ? { teamId: input.teamId } : {}) }) };
    },

    /** Every budget with its name and this month's spending, and the teams an admin may set one on. */
    async budgets() {
      const since = monthStart(now());
      const rows = await listBudgets(db);
      const states = await budgetStates(
        db,
        rows.map((b): BudgetSubject => (b.teamId ? { teamId: b.teamId } : { userId: b.userId! })),
        since,
      );
      const emails = await findUserEmails(
        db,
        states.flatMap((b) => (b.userId ? [b.userId] : [])),
      );
      const teams = await listAllTeams(db);
      const teamNames = new Map(teams.map((t) => [t.id, t.name]));
      return {
        budgets: states.map((b) => ({
          id: b.id,
          scope: b.teamId ? ("team" as const) : ("person" as const),
          teamId: b.teamId,
          userId: b.userId,
          name: b.teamId
            ? (teamNames.get(b.teamId) ?? "(deleted team)")
            : (emails.get(b.userId!) ?? "(deleted person)"),
          monthlyUsd: b.monthlyUsd,
          spentUsd: b.spentUsd,
        })),
        teams,
      };
    },

    /** The team's budget and this month's spending, for its members' usage page. */
    async teamBudget(teamId: string) {
      const [state] = await budgetStates(db, [{ teamId }], monthStart(now()));
      return state
        ? { name: (await findTeamName(db, teamId)) ?? "", monthlyUsd: state.monthlyUsd, spentUsd: state.spentUsd }
        : null;
    },

    async setBudget(input: { teamId: string } | { email: string }, monthlyUsd: number | null, byId: string) {
      let subject: BudgetSubject;
      if ("teamId" in input) {
        if (!(await findTeamName(db, input.teamId))) throw new UsageError("No such team.");
        subject = { teamId: input.teamId };
      } else {
        const person = await findUserByEmail(db, input.email);
        if (!person) throw new UsageError(`No one here signs in as ${input.email}.`);
        subject = { userId: person.id };
      }
      await setBudget(db, subject, monthlyUsd, byId);
      return { ok: true };
    },

    prices: () => listModelSettings(db),
  };
}
