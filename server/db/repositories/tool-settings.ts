import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";

export type ToolSettingsRow = { mcpServers: unknown; toolDiscoveryCommand: string | null; toolCallCommand: string | null; updatedAt: Date | null };

const select = { mcpServers: true, toolDiscoveryCommand: true, toolCallCommand: true, updatedAt: true } as const;

export async function getToolSettings(db: Db, projectId: string): Promise<ToolSettingsRow> {
  return (await db.projectToolSettings.findUnique({ where: { projectId }, select })) ?? { mcpServers: {}, toolDiscoveryCommand: null, toolCallCommand: null, updatedAt: null };
}

export async function updateToolSettings(db: Db, projectId: string, patch: { mcpServers?: unknown; toolDiscoveryCommand?: string | null; toolCallCommand?: string | null }) {
  const data = { ...patch, mcpServers: patch.mcpServers as Prisma.InputJsonValue | undefined };
  return db.projectToolSettings.upsert({ where: { projectId }, create: { projectId, ...data }, update: data, select });
}
