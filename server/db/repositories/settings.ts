import { z } from "zod";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { NETWORK_POLICIES, networkPolicyKind } from "@/lib/egress-policy";
import { commandGuardConfigSchema, DEFAULT_COMMAND_GUARD } from "@/lib/command-guard-config";
import { webSearchBackendSchema } from "@/lib/web-search-config";
import { AUDIT_RETENTION_MAX_DAYS } from "@/lib/audit";

// Instance-wide settings, each with its schema and default, stored as JSON rows.
export const settingSchemas = {
  signupMode: z.enum(["open", "invite"]).default("invite"),
  /** Which network policies projects may choose (an admin may rule out `open`, say). */
  networkPolicies: z
    .array(networkPolicyKind)
    .min(1)
    .default([...NETWORK_POLICIES]),
  commandGuard: commandGuardConfigSchema.default(DEFAULT_COMMAND_GUARD),
  /** The admin's web search service; null: the environment's (server/env/). */
  webSearch: webSearchBackendSchema.nullable().default(null),
  /** How many days the audit log keeps its rows (services/audit-log.ts purges older ones). */
  auditRetentionDays: z.number().int().min(1).max(AUDIT_RETENTION_MAX_DAYS).default(365),
};

export type SettingKey = keyof typeof settingSchemas;
export type SettingValue<K extends SettingKey> = z.output<(typeof settingSchemas)[K]>;

export async function getSetting<K extends SettingKey>(db: Db, key: K): Promise<SettingValue<K>> {
  const row = await db.setting.findUnique({ where: { key }, select: { value: true } });
  const parsed = settingSchemas[key].safeParse(row?.value ?? undefined);
  return (parsed.success ? parsed.data : settingSchemas[key].parse(undefined)) as SettingValue<K>;
}

/** Several settings in one query (every turn's start reads the command guard and web search together: db.sql). */
export async function getSettings<K extends SettingKey>(
  db: Db,
  keys: readonly K[],
): Promise<{ [P in K]: SettingValue<P> }> {
  const rows = await db.sql<{
    key: string;
    value: unknown;
  }>`SELECT key, value FROM setting WHERE key = ANY(${[...keys]}::text[])`;
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  const out = {} as { [P in K]: SettingValue<P> };
  for (const key of keys) {
    const parsed = settingSchemas[key].safeParse(stored.get(key) ?? undefined);
    out[key] = (parsed.success ? parsed.data : settingSchemas[key].parse(undefined)) as SettingValue<K>;
  }
  return out;
}

export async function setSetting<K extends SettingKey>(db: Db, key: K, value: SettingValue<K>) {
  const json = settingSchemas[key].parse(value) as object | null;
  if (json === null) await db.setting.deleteMany({ where: { key } });
  else await db.setting.upsert({ where: { key }, create: { key, value: json }, update: { value: json } });
  await recordAudit(db, "settings.changed", { target: key, detail: { value: json } });
}
