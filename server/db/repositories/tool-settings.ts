import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

export type ToolSettingsRow = {
  mcpServers: unknown;
  toolDiscoveryCommand: string | null;
  toolCallCommand: string | null;
  languageServers: unknown;
  updatedAt: Date | null;
};

const select = {
  mcpServers: true,
  toolDiscoveryCommand: true,
  toolCallCommand: true,
  languageServers: true,
  updatedAt: true,
} as const;

/** The project's tool settings (every turn's start reads them: db.sql). */
export async function getToolSettings(db: Db, projectId: string): Promise<ToolSettingsRow> {
  const [row] = await db.sql<ToolSettingsRow>`
    SELECT "mcpServers", "toolDiscoveryCommand", "toolCallCommand", "languageServers", "updatedAt" FROM project_tool_settings WHERE "projectId" = ${projectId}`;
  return (
    row ?? { mcpServers: {}, toolDiscoveryCommand: null, toolCallCommand: null, languageServers: {}, updatedAt: null }
  );
}

export async function updateToolSettings(
  db: Db,
  projectId: string,
  patch: {
    mcpServers?: unknown;
    toolDiscoveryCommand?: string | null;
    toolCallCommand?: string | null;
    languageServers?: unknown;
  },
) {
  const data = {
    ...patch,
    mcpServers: patch.mcpServers as Prisma.InputJsonValue | undefined,
    languageServers: patch.languageServers as Prisma.InputJsonValue | undefined,
  };
  const row = await db.projectToolSettings.upsert({
    where: { projectId },
    create: { projectId, ...data },
    update: data,
    select,
  });
  await recordAudit(db, "project.settings_changed", { projectId, target: "tools", detail: patch });
  return row;
}
