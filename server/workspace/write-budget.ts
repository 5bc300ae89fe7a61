import { WorkspaceError } from "./errors";

// The disk budget as the server's own writes meet it (issue 38, 8): an editor save, an upload, a
// checkpoint restore, a rejected change or a tool's write into a project past its budget is
// refused with DISK_FULL, and one that would take it past is refused before anything lands. The
// budget itself is measured by server/sandbox/disk-budget.ts; the composition root attaches it to
// each project's Workspace (services/project-files.ts), so every write path finds it here.

export interface WriteBudget {
  readonly budgetMiB: number;
  /** Bytes that may still be written (0 or less: none), measured at most a check interval ago. */
  room(): Promise<number>;
  /** Counts what was just written, until the next measurement. */
  added(bytes: number): void;
}

// Keyed by each Workspace object; typed `object` so this file need not import workspace.ts, which imports it.
const budgets = new WeakMap<object, WriteBudget>();

/** Every write of the server into `workspace` keeps within `budget` from now on. */
export function limitWrites(workspace: object, budget: WriteBudget): void {
  if (!budgets.has(workspace)) budgets.set(workspace, budget);
}

const megabytes = (bytes: number) => `${(Math.max(bytes, 0) / 1024 / 1024).toFixed(1)} MB`;

function reached(budget: WriteBudget): WorkspaceError {
  return new WorkspaceError(
    "DISK_FULL",
    `This project's disk budget of ${budget.budgetMiB} MB is reached, so nothing more can be saved or uploaded here. Delete files (in the file tree, or with rm in a terminal), then try again.`,
  );
}

function tooBig(budget: WriteBudget, what: string, room: number): WorkspaceError {
  return new WorkspaceError(
    "DISK_FULL",
    `${what} does not fit in what is left of this project's disk budget of ${budget.budgetMiB} MB (${megabytes(room)} left). Delete files or write less, then try again.`,
  );
}

/**
 * How many bytes may be written into `workspace` now (Infinity without a budget); refuses with
 * DISK_FULL when the budget is reached. For a stream whose size is known only at its end.
 */
export async function roomFor(workspace: object): Promise<number> {
  const budget = budgets.get(workspace);
  if (!budget) return Infinity;
  const room = await budget.room();
  if (room <= 0) throw reached(budget);
  return room;
}

/** The refusal for `what`, which outgrew `room` while it was written. */
export function outgrew(workspace: object, what: string, room: number): WorkspaceError {
  return tooBig(budgets.get(workspace)!, what, room);
}

/**
 * Refuses (DISK_FULL) a write that makes the workspace `growth` bytes bigger when that does not
 * fit. A write that does not grow it (a file saved shorter, a delete) is never refused: it is how
 * a full project gets back under its budget.
 */
export async function ensureRoom(workspace: object, growth: number, what: string): Promise<void> {
  const budget = budgets.get(workspace);
  if (!budget || growth <= 0) return;
  const room = await budget.room();
  if (room <= 0) throw reached(budget);
  if (growth > room) throw tooBig(budget, what, room);
}

/** Counts `bytes` the server just wrote into `workspace` against its budget. */
export function spent(workspace: object, bytes: number): void {
  if (bytes > 0) budgets.get(workspace)?.added(bytes);
}
