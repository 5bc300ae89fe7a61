import type { SetupRunState } from "@/lib/toolchains";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

// A project's environment settings and its last setup run (project_environment); a project
// without a row has no settings of its own and has never run a setup.

export type EnvironmentSettings = {
  setupScript: string | null;
  nodeVersion: string | null;
  pythonVersion: string | null;
};

/** A setup run as stored: the shape the project page and the agent see. */
export type SetupRunRow = SetupRunState;

const NO_SETTINGS: EnvironmentSettings = { setupScript: null, nodeVersion: null, pythonVersion: null };

export async function getEnvironmentSettings(db: Db, projectId: string): Promise<EnvironmentSettings> {
  const row = await db.projectEnvironment.findUnique({
    where: { projectId },
    select: { setupScript: true, nodeVersion: true, pythonVersion: true },
  });
  return row ?? { ...NO_SETTINGS };
}

export async function saveEnvironmentSettings(
  db: Db,
  projectId: string,
  settings: EnvironmentSettings,
): Promise<EnvironmentSettings> {
  const row = await db.projectEnvironment.upsert({
    where: { projectId },
    create: { projectId, ...settings },
    update: settings,
    select: { setupScript: true, nodeVersion: true, pythonVersion: true },
  });
  await recordAudit(db, "project.settings_changed", { projectId, target: "environment", detail: row });
  return row;
}

export async function getSetupRun(db: Db, projectId: string): Promise<SetupRunRow | null> {
  const row = await db.projectEnvironment.findUnique({
    where: { projectId },
    select: {
      setupStatus: true,
      setupExitCode: true,
      setupSource: true,
      setupTrigger: true,
      setupStartedAt: true,
      setupEndedAt: true,
      setupOutput: true,
    },
  });
  if (!row?.setupStatus || !row.setupStartedAt) return null;
  return {
    status: row.setupStatus as SetupRunRow["status"],
    exitCode: row.setupExitCode,
    source: (row.setupSource ?? "settings") as SetupRunRow["source"],
    trigger: (row.setupTrigger ?? "rebuild") as SetupRunRow["trigger"],
    startedAt: row.setupStartedAt,
    endedAt: row.setupEndedAt,
    output: row.setupOutput,
  };
}

export async function saveSetupRun(db: Db, projectId: string, run: SetupRunRow): Promise<void> {
  const data = {
    setupStatus: run.status,
    setupExitCode: run.exitCode,
    setupSource: run.source,
    setupTrigger: run.trigger,
    setupStartedAt: run.startedAt,
    setupEndedAt: run.endedAt,
    setupOutput: run.output,
  };
  await db.projectEnvironment.upsert({ where: { projectId }, create: { projectId, ...data }, update: data });
}
