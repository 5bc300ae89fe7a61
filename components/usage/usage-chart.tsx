"use client";

import type { UsageRowView } from "@/lib/usage";
import { sumBy } from "@/lib/usage";

const WIDTH = 800;
const HEIGHT = 160;
const PAD = { top: 10, right: 8, bottom: 22, left: 48 };

/** Cost per day as bars (every day of the range, empty ones too), with the highest day's cost on the axis. */
export function UsageChart({ rows, from, to }: { rows: UsageRowView[]; from: Date; to: Date }) {
  const byDay = new Map(sumBy(rows, "day").map((d) => [d.key, d.costUsd]));
  const days: string[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  const max = Math.max(0.01, ...days.map((d) => byDay.get(d) ?? 0));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  return (
    <svg
      className="usage-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label="Cost per day"
      data-testid="usage-chart"
    >
      <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} className="axis" />
      <text x={PAD.left - 6} y={PAD.top + 8} textAnchor="end" className="axis-label">
        ${max.toFixed(2)}
      </text>
      <text x={PAD.left - 6} y={PAD.top + plotH} textAnchor="end" className="axis-label">
        $0
      </text>
      {days.map((day, i) => {
        const cost = byDay.get(day) ?? 0;
        const h = (cost / max) * plotH;
        const x = PAD.left + i * slot;
        return (
          <g key={day}>
            <rect x={x + slot * 0.15} width={slot * 0.7} y={PAD.top + plotH - h} height={h} className="bar">
              <title>{`${day}: $${cost.toFixed(2)}`}</title>
            </rect>
            {(i === 0 || i === days.length - 1 || days.length <= 10 || i % 7 === 0) && (
              <text x={x + slot / 2} y={HEIGHT - 6} textAnchor="middle" className="axis-label">
                {day.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
