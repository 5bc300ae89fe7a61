"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

// Model settings' warning of issue 39: what every request of each model carries before the
// conversation (instructions and tool definitions), as last measured on this instance. A model
// whose window this fills past the warning share leaves little room for the work itself.

const thousands = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k` : String(n));

export function FixedCostsCard() {
  const trpc = useTRPC();
  const costs = useQuery(trpc.model.fixedCosts.queryOptions());
  const warnAt = costs.data?.warnShare ?? 0.15;
  const rows = costs.data?.models ?? [];
  return (
    <section className="card stack" data-testid="fixed-costs-card">
      <div className="section-title">
        <h2>What every request carries</h2>
        <span className="hint">
          The agent's instructions and tool definitions, sent with each step before the conversation, as the last step
          of each model on this server measured them.
        </span>
      </div>
      {rows.length === 0 ? (
        <p className="hint">
          {costs.isPending ? "Loading…" : "No model has run a step on this server since it started."}
        </p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Model</th>
              <th>Fixed cost</th>
              <th>Window</th>
              <th>Share</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const over = row.share > warnAt;
              return (
                <tr key={row.model} data-testid="fixed-cost-row">
                  <td>{row.model}</td>
                  <td>~{thousands(row.tokens)} tokens</td>
                  <td>{thousands(row.contextWindow)} tokens</td>
                  <td>
                    {Math.round(row.share * 100)}%
                    {over && (
                      <span className="banner banner-warning fixed-cost-warning" role="note">
                        Over {Math.round(warnAt * 100)}% of the window: every step of this model starts with little
                        room. Set its real window in its settings if it is larger, switch off tools the projects do not
                        use, or choose a model with a larger window.
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
