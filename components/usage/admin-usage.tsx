"use client";

import { FixedCostsCard } from "@/components/usage/fixed-costs-card";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { BudgetMeter, UsageReport } from "@/components/usage/usage-report";

/** The instance's usage (every team, project, person and model), budgets and prices: for its admins. */
export function AdminUsage({ role }: { role: string }) {
  const trpc = useTRPC();
  const report = useQuery({ ...trpc.usage.report.queryOptions({}), enabled: role === "admin" });
  if (role !== "admin") return <div className="notice notice-error">Only an admin sees the usage of everyone.</div>;
  return (
    <>
      <div className="row">
        <Link className="btn btn-ghost btn-sm" href="/admin">
          ‹ Admin
        </Link>
        <h1>Usage and budgets</h1>
      </div>
      {report.error && <div className="notice notice-error">{errorMessage(report.error)}</div>}
      {report.data && (
        <UsageReport
          rows={report.data.rows}
          from={report.data.from}
          to={report.data.to}
          filename={`tandem-usage-${report.data.from.toISOString().slice(0, 7)}.csv`}
        />
      )}
      <BudgetsCard />
      <PricesCard />
      <FixedCostsCard />
    </>
  );
}

function BudgetsCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const budgets = useQuery(trpc.usage.budgets.queryOptions());
  const [kind, setKind] = useState<"team" | "person">("team");
  const [teamId, setTeamId] = useState("");
  const [email, setEmail] = useState("");
  const [amount, setAmount] = useState("");
  const set = useMutation(
    trpc.usage.setBudget.mutationOptions({
      onSuccess: () => {
        setAmount("");
        void queryClient.invalidateQueries(trpc.usage.pathFilter());
      },
    }),
  );
  const teams = budgets.data?.teams ?? [];
  const chosenTeam = teamId || teams[0]?.id || "";
  return (
    <section className="card stack" data-testid="budgets-card">
      <div className="section-title">
        <h2>Monthly budgets</h2>
        <span className="hint">
          At 80% the team&apos;s owners and admins (or the person) are told; at 100% new agent turns are refused until
          the month ends or the budget is raised. A running turn stops only between tool calls.
        </span>
      </div>
      {budgets.data?.budgets.length ? (
        <table className="table" data-testid="budgets-table">
          <tbody>
            {budgets.data.budgets.map((b) => (
              <tr key={b.id}>
                <td>{b.scope === "team" ? "Team" : "Person"}</td>
                <td>{b.name}</td>
                <td>
                  <BudgetMeter spentUsd={b.spentUsd} monthlyUsd={b.monthlyUsd} />
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() =>
                      set.mutate(
                        b.teamId ? { teamId: b.teamId, monthlyUsd: null } : { email: b.name, monthlyUsd: null },
                      )
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">{budgets.isPending ? "Loading…" : "No budgets: the agent may spend without a cap."}</p>
      )}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const monthlyUsd = Number(amount);
          set.mutate(kind === "team" ? { teamId: chosenTeam, monthlyUsd } : { email, monthlyUsd });
        }}
      >
        <select
          className="input"
          value={kind}
          onChange={(e) => setKind(e.target.value as "team" | "person")}
          aria-label="Budget for"
        >
          <option value="team">Team</option>
          <option value="person">Person</option>
        </select>
        {kind === "team" ? (
          <select
            className="input"
            value={chosenTeam}
            onChange={(e) => setTeamId(e.target.value)}
            aria-label="Team"
            data-testid="budget-team"
          >
            {teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.personal ? `${t.name} (personal)` : t.name}
              </option>
            ))}
          </select>
        ) : (
          <input
            className="input"
            type="email"
            placeholder="person@example.com"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-label="Person's email"
          />
        )}
        <input
          className="input"
          type="number"
          min="0.01"
          step="0.01"
          placeholder="USD a month"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          aria-label="USD a month"
          data-testid="budget-amount"
          style={{ width: 130 }}
        />
        <button className="btn btn-primary" type="submit" disabled={!amount || set.isPending} data-testid="budget-save">
          Set budget
        </button>
      </form>
      {set.error && <div className="error-text">{errorMessage(set.error)}</div>}
    </section>
  );
}

type PriceRow = {
  model: string;
  inputPerMTok: number | null;
  outputPerMTok: number | null;
  cachedInputPerMTok: number | null;
  contextWindow: number | null;
};

/** Prices per million tokens, per model: what turns tokens into cost (and lets budgets count a model at all). */
function PricesCard() {
  const trpc = useTRPC();
  const prices = useQuery(trpc.usage.prices.queryOptions());
  const [adding, setAdding] = useState("");
  return (
    <section className="card stack" data-testid="prices-card">
      <div className="section-title">
        <h2>Model prices</h2>
        <span className="hint">
          USD per million tokens. A model without a price has no cost, and is refused under a budget.
        </span>
      </div>
      <table className="table">
        <thead>
          <tr>
            <th>Model</th>
            <th>Input</th>
            <th>Cached input</th>
            <th>Output</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(prices.data ?? []).map((p) => (
            <PriceEditor key={p.model} row={p} />
          ))}
          {adding && (
            <PriceEditor
              key={`new-${adding}`}
              row={{
                model: adding,
                inputPerMTok: null,
                outputPerMTok: null,
                cachedInputPerMTok: null,
                contextWindow: null,
              }}
              onSaved={() => setAdding("")}
            />
          )}
        </tbody>
      </table>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const input = new FormData(e.currentTarget).get("model");
          if (typeof input === "string" && input.trim()) setAdding(input.trim());
        }}
      >
        <input
          className="input"
          name="model"
          placeholder="provider:model, e.g. anthropic:claude-sonnet-4-5"
          aria-label="Model"
          style={{ flex: 1 }}
        />
        <button className="btn" type="submit">
          Add a price
        </button>
      </form>
    </section>
  );
}

function PriceEditor({ row, onSaved }: { row: PriceRow; onSaved?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [input, setInput] = useState(row.inputPerMTok?.toString() ?? "");
  const [cached, setCached] = useState(row.cachedInputPerMTok?.toString() ?? "");
  const [output, setOutput] = useState(row.outputPerMTok?.toString() ?? "");
  const save = useMutation(
    trpc.model.setSettings.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries(trpc.usage.prices.queryFilter());
        onSaved?.();
      },
    }),
  );
  const num = (s: string) => (s.trim() === "" ? null : Number(s));
  const field = (value: string, set: (v: string) => void, label: string) => (
    <input
      className="input"
      type="number"
      min="0"
      step="0.01"
      value={value}
      onChange={(e) => set(e.target.value)}
      aria-label={`${label} price of ${row.model}`}
      style={{ width: 90 }}
    />
  );
  return (
    <tr data-testid={`price-${row.model}`}>
      <td>
        <code>{row.model}</code>
      </td>
      <td>{field(input, setInput, "Input")}</td>
      <td>{field(cached, setCached, "Cached input")}</td>
      <td>{field(output, setOutput, "Output")}</td>
      <td>
        <button
          type="button"
          className="btn btn-sm"
          disabled={save.isPending}
          onClick={() =>
            save.mutate({
              model: row.model,
              inputPerMTok: num(input),
              outputPerMTok: num(output),
              cachedInputPerMTok: num(cached),
              contextWindow: row.contextWindow,
            })
          }
        >
          Save
        </button>
        {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
      </td>
    </tr>
  );
}
