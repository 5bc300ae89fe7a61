"use client";

import { useState } from "react";
import { toCsv } from "@/lib/csv";
import { sumBy, USAGE_CSV_HEADER, usageCsvRows, type UsageDimension, type UsageRowView } from "@/lib/usage";
import { downloadText } from "@/components/ui/download";
import { UsageChart } from "@/components/usage/usage-chart";
import "@/components/usage/usage.css";

const DIMENSIONS: Array<{ key: UsageDimension; label: string }> = [
  { key: "userEmail", label: "Person" },
  { key: "teamName", label: "Team" },
  { key: "projectName", label: "Project" },
  { key: "model", label: "Model" },
  { key: "day", label: "Day" },
];

const tokens = (n: number) =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`;

/** The chart, totals by one dimension at a time, and the CSV of every row (day × team × project × person × model). */
export function UsageReport({
  rows,
  from,
  to,
  filename,
  dimensions = DIMENSIONS.map((d) => d.key),
}: {
  rows: UsageRowView[];
  from: Date;
  to: Date;
  filename: string;
  dimensions?: UsageDimension[];
}) {
  const shown = DIMENSIONS.filter((d) => dimensions.includes(d.key));
  const [by, setBy] = useState<UsageDimension>(shown[0]!.key);
  const total = sumBy(rows, "model").reduce(
    (t, r) => ({ cost: t.cost + r.costUsd, input: t.input + r.inputTokens, output: t.output + r.outputTokens }),
    { cost: 0, input: 0, output: 0 },
  );
  return (
    <section className="card stack" data-testid="usage-report">
      <div className="section-title">
        <h2>Tokens and cost</h2>
        <span className="hint">
          {from.toISOString().slice(0, 10)} to {new Date(to.getTime() - 1).toISOString().slice(0, 10)} (UTC)
        </span>
        <span style={{ flex: 1 }} />
        <button
          type="button"
          className="btn btn-sm"
          data-testid="usage-csv"
          onClick={() => downloadText(filename, toCsv(USAGE_CSV_HEADER, usageCsvRows(rows)), "text/csv")}
        >
          Export CSV
        </button>
      </div>
      <div className="usage-totals" data-testid="usage-totals">
        <div>
          <strong>${total.cost.toFixed(2)}</strong>
          <span className="hint">cost</span>
        </div>
        <div>
          <strong>{tokens(total.input)}</strong>
          <span className="hint">input tokens</span>
        </div>
        <div>
          <strong>{tokens(total.output)}</strong>
          <span className="hint">output tokens</span>
        </div>
      </div>
      <UsageChart rows={rows} from={from} to={to} />
      <div className="segmented" role="group" aria-label="Totals by">
        {shown.map((d) => (
          <button
            key={d.key}
            type="button"
            aria-pressed={by === d.key}
            onClick={() => setBy(d.key)}
            data-testid={`usage-by-${d.key}`}
          >
            {d.label}
          </button>
        ))}
      </div>
      {rows.length ? (
        <table className="table" data-testid="usage-table">
          <thead>
            <tr>
              <th>{shown.find((d) => d.key === by)!.label}</th>
              <th>Steps</th>
              <th>Input</th>
              <th>Output</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {sumBy(rows, by).map((r) => (
              <tr key={r.key}>
                <td>{r.key}</td>
                <td>{r.steps}</td>
                <td>{tokens(r.inputTokens)}</td>
                <td>{tokens(r.outputTokens)}</td>
                <td>${r.costUsd.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">No agent work in this range yet.</p>
      )}
    </section>
  );
}

/** How much of a monthly budget is spent, as a bar that turns amber at 80% and red at 100%. */
export function BudgetMeter({ spentUsd, monthlyUsd }: { spentUsd: number; monthlyUsd: number }) {
  const share = spentUsd / monthlyUsd;
  const level = share >= 1 ? "over" : share >= 0.8 ? "near" : "ok";
  return (
    <div className="budget-meter" data-level={level} title={`${Math.round(share * 100)}%`}>
      <div style={{ width: `${Math.min(100, share * 100)}%` }} />
      <span>
        ${spentUsd.toFixed(2)} of ${monthlyUsd.toFixed(2)} ({Math.round(share * 100)}%)
      </span>
    </div>
  );
}
