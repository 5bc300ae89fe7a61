import { z } from "zod";

// The usage pages' shapes, shared by the server and the browser.

/** A range of whole UTC days; by default the month so far. */
export const usageRangeInput = z.object({ from: z.date().optional(), to: z.date().optional() });

export const setBudgetInput = z.union([
  z.object({ teamId: z.string().uuid(), monthlyUsd: z.number().positive().max(10_000_000).nullable() }),
  z.object({ email: z.email(), monthlyUsd: z.number().positive().max(10_000_000).nullable() }),
]);

export type UsageRowView = {
  day: string;
  teamId: string;
  teamName: string | null;
  projectId: string;
  projectName: string | null;
  userId: string | null;
  userEmail: string | null;
  model: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
};

export type UsageDimension = "day" | "teamName" | "projectName" | "userEmail" | "model";

/** Sums rows by one dimension, costliest first (days in order). */
export function sumBy(rows: UsageRowView[], key: UsageDimension) {
  const sums = new Map<
    string,
    { key: string; steps: number; inputTokens: number; outputTokens: number; costUsd: number }
  >();
  for (const row of rows) {
    const k = row[key] ?? "(deleted)";
    const s = sums.get(k) ?? { key: k, steps: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    s.steps += row.steps;
    s.inputTokens += row.inputTokens;
    s.outputTokens += row.outputTokens;
    s.costUsd += row.costUsd;
    sums.set(k, s);
  }
  const out = [...sums.values()];
  return key === "day" ? out.sort((a, b) => a.key.localeCompare(b.key)) : out.sort((a, b) => b.costUsd - a.costUsd);
}

export const USAGE_CSV_HEADER = [
  "day",
  "team",
  "project",
  "person",
  "model",
  "steps",
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "costUsd",
];

export function usageCsvRows(rows: UsageRowView[]) {
  return rows.map((r) => [
    r.day,
    r.teamName,
    r.projectName,
    r.userEmail,
    r.model,
    r.steps,
    r.inputTokens,
    r.outputTokens,
    r.cachedInputTokens,
    Number(r.costUsd.toFixed(6)),
  ]);
}
