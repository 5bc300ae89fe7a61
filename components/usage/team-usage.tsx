"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { BudgetMeter, UsageReport } from "@/components/usage/usage-report";

/** One team's usage this month, and its budget: for its members. */
export function TeamUsage({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.usage.team.queryOptions({ teamId }));
  if (usage.error) return <div className="notice notice-error">{errorMessage(usage.error)}</div>;
  const data = usage.data;
  return (
    <>
      <div className="row">
        <Link className="btn btn-ghost btn-sm" href={`/teams/${teamId}`}>
          ‹ Team
        </Link>
        <h1 data-testid="team-usage-title">{data ? `${data.team.name}: usage` : "…"}</h1>
      </div>
      {data && (
        <section className="card stack" data-testid="team-budget">
          <h2>Budget this month</h2>
          {data.budget ? (
            <BudgetMeter spentUsd={data.budget.spentUsd} monthlyUsd={data.budget.monthlyUsd} />
          ) : (
            <p className="hint">This team has no budget. An admin of this Tandem sets budgets.</p>
          )}
        </section>
      )}
      {data && (
        <UsageReport
          rows={data.rows}
          from={data.from}
          to={data.to}
          filename={`tandem-usage-${data.team.name}-${data.from.toISOString().slice(0, 7)}.csv`}
          dimensions={["userEmail", "projectName", "model", "day"]}
        />
      )}
    </>
  );
}
