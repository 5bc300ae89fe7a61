import type { TokenUsage } from "@/lib/session-events";

// Budgets as the agent sees them: before each model step the turn asks whether its team's and
// person's monthly budgets leave room (server/services/spending.ts answers, from the usage ledger).
// Asked between steps only, after every call of the previous step has its result, so a budget
// never cuts a tool call in the middle; a turn refused at its first step is a new turn refused.

/** A step let through holds an estimate of its cost until `settle` records what it really used. */
export type StepAdmission =
  | { ok: true; settle(usage: TokenUsage, costUsd: number | null): Promise<void> }
  | { ok: false; message: string };

export type TurnSpending = {
  /** `priced`: the model has a price; without one a budget could not count its steps, so they are refused under a budget. */
  admitStep(step: {
    sessionId: string;
    projectId: string;
    userId: string;
    model: string;
    priced: boolean;
  }): Promise<StepAdmission>;
};

/** A turn's view of it, with the session, project, person and model bound (turn-setup.ts). */
export type StepSpending = { admitStep(): Promise<StepAdmission> };
