import type { Db } from "@/server/db/client";

// A project's inbound webhook: its sealed HMAC key, the account its sessions are authored by, and
// the deliveries it has seen (server/services/project-webhooks.ts decides with them).

export type ProjectWebhookRow = {
  projectId: string;
  keyId: string;
  secret: Uint8Array;
  botUserId: string;
  createdAt: Date;
  updatedAt: Date;
};

export async function findProjectWebhook(db: Db, projectId: string): Promise<ProjectWebhookRow | null> {
  return db.projectWebhook.findUnique({ where: { projectId } });
}

export async function saveProjectWebhook(
  db: Db,
  input: { projectId: string; keyId: string; secret: Uint8Array; botUserId: string },
): Promise<ProjectWebhookRow> {
  const data = { keyId: input.keyId, secret: Buffer.from(input.secret), botUserId: input.botUserId };
  return db.projectWebhook.upsert({
    where: { projectId: input.projectId },
    create: { projectId: input.projectId, ...data },
    update: data,
  });
}

/** Deletes the webhook and takes its account out of the project's team; the account, or null. */
export async function deleteProjectWebhook(db: Db, projectId: string, teamId: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const row = await tx.projectWebhook.findUnique({ where: { projectId }, select: { botUserId: true } });
    if (!row) return null;
    await tx.projectWebhook.delete({ where: { projectId } });
    await tx.teamMember.deleteMany({ where: { teamId, userId: row.botUserId } });
    return row.botUserId;
  });
}

/**
 * Records a delivery; false when this project saw its id already (a replay). Deliveries older
 * than `forgetBefore` are dropped first: their timestamps no longer pass.
 */
export async function recordWebhookDelivery(
  db: Db,
  projectId: string,
  deliveryId: string,
  forgetBefore: Date,
): Promise<boolean> {
  await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: forgetBefore } } });
  const inserted = await db.$executeRaw`
    INSERT INTO "webhook_delivery" ("projectId", "deliveryId") VALUES (${projectId}, ${deliveryId})
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}

/** Forgets a delivery id recorded above: a delivery that failed on the way, to be taken when sent again. */
export async function forgetWebhookDelivery(db: Db, projectId: string, deliveryId: string): Promise<void> {
  await db.webhookDelivery.deleteMany({ where: { projectId, deliveryId } });
}
