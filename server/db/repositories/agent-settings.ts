import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

export type ProjectAgentSettingsRow = {
  approvalMode: string;
  allowRules: unknown;
  denyRules: unknown;
  stepLimit: number;
  loopGuardRepeats: number;
  /** Built-in tool names turned off for the project. */
  excludeTools: unknown;
  /** Deferrable tools past this many wait behind tool_search. */
  deferToolsOver: number;
  /** The sha256 of the hooks file a project admin approved (server/agent/hooks.ts). */
  hooksDigest: string | null;
};

export const DEFAULT_AGENT_SETTINGS: ProjectAgentSettingsRow = {
  approvalMode: "ask",
  allowRules: [],
  denyRules: [],
  stepLimit: 50,
  loopGuardRepeats: 3,
  excludeTools: [],
  deferToolsOver: 20,
  hooksDigest: null,
};

const select = {
  approvalMode: true,
  allowRules: true,
  denyRules: true,
  stepLimit: true,
  loopGuardRepeats: true,
  excludeTools: true,
  deferToolsOver: true,
  hooksDigest: true,
} as const;

export async function getProjectAgentSettings(db: Db, projectId: string): Promise<ProjectAgentSettingsRow> {
  return (await db.projectAgentSettings.findUnique({ where: { projectId }, select })) ?? DEFAULT_AGENT_SETTINGS;
}

/**
 * The project's name and agent settings (what a turn's start needs of the project) in one query;
 * null when the project is gone. SQL because Prisma reads a relation with a second query, and
 * every turn starts with this (straight to the pool: db.sql).
 */
export async function findProjectForTurn(
  db: Db,
  projectId: string,
): Promise<{ name: string; settings: ProjectAgentSettingsRow } | null> {
  const [row] = await db.sql<{ name: string; hasSettings: boolean } & ProjectAgentSettingsRow>`
    SELECT p.name, s."projectId" IS NOT NULL AS "hasSettings", s."approvalMode", s."allowRules", s."denyRules", s."stepLimit",
           s."loopGuardRepeats", s."excludeTools", s."deferToolsOver", s."hooksDigest"
    FROM project p LEFT JOIN project_agent_settings s ON s."projectId" = p.id
    WHERE p.id = ${projectId}`;
  if (!row) return null;
  const { name, hasSettings, ...settings } = row;
  return { name, settings: hasSettings ? settings : DEFAULT_AGENT_SETTINGS };
}

export async function updateProjectAgentSettings(db: Db, projectId: string, patch: Partial<ProjectAgentSettingsRow>) {
  const data = {
    ...patch,
    allowRules: patch.allowRules as Prisma.InputJsonValue | undefined,
    denyRules: patch.denyRules as Prisma.InputJsonValue | undefined,
    excludeTools: patch.excludeTools as Prisma.InputJsonValue | undefined,
  };
  const row = await db.projectAgentSettings.upsert({
    where: { projectId },
    create: { projectId, ...data },
    update: data,
    select,
  });
  await recordAudit(db, "project.settings_changed", { projectId, target: "agent", detail: patch });
  return row;
}

export type ModelSettingRow = {
  model: string;
  inputPerMTok: number | null;
  outputPerMTok: number | null;
  cachedInputPerMTok: number | null;
  contextWindow: number | null;
  acceptsImages: boolean | null;
};

export async function listModelSettings(db: Db): Promise<ModelSettingRow[]> {
  return db.modelSetting.findMany({
    select: {
      model: true,
      inputPerMTok: true,
      outputPerMTok: true,
      cachedInputPerMTok: true,
      contextWindow: true,
      acceptsImages: true,
    },
    orderBy: { model: "asc" },
  });
}

/** One model's setting, read by every turn's start: straight to the pool (db.sql). */
export async function findModelSetting(db: Db, model: string): Promise<ModelSettingRow | null> {
  const [row] = await db.sql<ModelSettingRow>`
    SELECT model, "inputPerMTok", "outputPerMTok", "cachedInputPerMTok", "contextWindow", "acceptsImages" FROM model_setting WHERE model = ${model}`;
  return row ?? null;
}

export async function setModelSetting(
  db: Db,
  row: Omit<ModelSettingRow, "acceptsImages"> & { acceptsImages?: boolean | null },
) {
  const { model, ...data } = row;
  await db.modelSetting.upsert({ where: { model }, create: row, update: data });
  await recordAudit(db, "model.settings_changed", { target: model, detail: data });
}
