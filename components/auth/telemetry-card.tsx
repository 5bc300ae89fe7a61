"use client";

import "@/components/ui/settings.css";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";

const WINDOWS = [
  { hours: 1, label: "Last hour" },
  { hours: 24, label: "Last 24 hours" },
  { hours: 24 * 7, label: "Last 7 days" },
  { hours: 24 * 30, label: "Last 30 days" },
];

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
const num = (n: number) => Math.round(n).toLocaleString("en-US");

/** The agent's tool and model metrics across projects (from the session log), and where OTLP export goes. */
export function TelemetryCard() {
  const trpc = useTRPC();
  const [hours, setHours] = useState(24);
  const data = useQuery(trpc.account.telemetry.queryOptions({ hours })).data;
  return (
    <section className="card settings-card telemetry-card" data-testid="telemetry-card">
      <div className="section-title">
        <h2>Agent telemetry</h2>
        <span className="hint" data-testid="telemetry-export">
          {data === undefined
            ? "…"
            : data.exportTo
              ? `Exported over OTLP to ${data.exportTo}.`
              : "Not exported (set OTEL_EXPORTER_OTLP_ENDPOINT to send it to a collector)."}
        </span>
      </div>
      <div className="row">
        <select
          className="input"
          aria-label="Window"
          data-testid="telemetry-window"
          value={hours}
          onChange={(e) => setHours(Number(e.target.value))}
        >
          {WINDOWS.map((w) => (
            <option key={w.hours} value={w.hours}>
              {w.label}
            </option>
          ))}
        </select>
      </div>
      <h3>Tools</h3>
      {data && data.tools.length > 0 ? (
        <table className="table" data-testid="telemetry-tools">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Calls</th>
              <th>Errors</th>
              <th>Average</th>
              <th>p95</th>
              <th>Result characters</th>
            </tr>
          </thead>
          <tbody>
            {data.tools.map((t) => (
              <tr key={t.tool}>
                <td>{t.tool}</td>
                <td>{num(t.calls)}</td>
                <td>
                  {num(t.errors)}
                  {t.topError ? <span className="muted"> (mostly {t.topError})</span> : null}
                </td>
                <td>{ms(t.avgMs)}</td>
                <td>{ms(t.p95Ms)}</td>
                <td>{num(t.resultChars)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">{data ? "No tool calls in this window." : "Loading…"}</p>
      )}
      <h3>Models</h3>
      {data && data.models.length > 0 ? (
        <table className="table" data-testid="telemetry-models">
          <thead>
            <tr>
              <th>Model</th>
              <th>Steps</th>
              <th>Input tokens</th>
              <th>Cache hits</th>
              <th>Output tokens</th>
              <th>Retries</th>
              <th>Errors</th>
            </tr>
          </thead>
          <tbody>
            {data.models.map((m) => (
              <tr key={m.model}>
                <td>{m.model}</td>
                <td>{num(m.steps)}</td>
                <td>{num(m.inputTokens)}</td>
                <td>
                  {num(m.cachedTokens)}
                  {m.inputTokens > 0 ? (
                    <span className="muted"> ({Math.round((100 * m.cachedTokens) / m.inputTokens)}%)</span>
                  ) : null}
                </td>
                <td>{num(m.outputTokens)}</td>
                <td>{num(m.retries)}</td>
                <td>{num(m.errors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">{data ? "No model steps in this window." : "Loading…"}</p>
      )}
    </section>
  );
}
