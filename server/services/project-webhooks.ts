import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "@/server/db/client";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import {
  deleteProjectWebhook,
  findProjectWebhook,
  forgetWebhookDelivery,
  recordWebhookDelivery,
  saveProjectWebhook,
} from "@/server/db/repositories/project-webhooks";
import { createTeamBot } from "@/server/db/repositories/users";
import { WEBHOOK_TOLERANCE_SECONDS } from "@/lib/webhooks";
import { gitlabToken, signedWith, type ForgeDelivery } from "@/server/services/forge-events";

// A project's inbound webhook: a secret its admins make (shown once, sealed at rest), an account of
// the team's own that the sessions it starts are authored by (a member: it runs the agent and
// writes, and holds no person's secrets), and the check of each delivery: HMAC over timestamp,
// delivery id and body, a timestamp within minutes, a delivery id never seen before. A forge's
// delivery (GitHub, GitLab, Gitea) is checked by that forge's scheme under the same secret (GitLab's
// by a token derived from it, forge-events.ts).

export type WebhookRefusal = { ok: false; status: 401 | 404 | 409; message: string };
export type WebhookCheck = { ok: true; botUserId: string } | WebhookRefusal;

export function createProjectWebhooks(db: Db, cipher: CredentialCipher) {
  const keyOf = async (projectId: string) => {
    const row = await findProjectWebhook(db, projectId);
    const key = row && cipher.open({ keyId: row.keyId, secret: row.secret });
    return row && key ? { row, key } : null;
  };

  /** Whether the delivery id is new, remembered long enough to outlast its timestamp's window. */
  const firstDelivery = (projectId: string, deliveryId: string, now: number) =>
    recordWebhookDelivery(
      db,
      projectId,
      deliveryId,
      new Date(now - 2 * WEBHOOK_TOLERANCE_SECONDS * 1000 - DELIVERY_MEMORY_MS),
    );

  return {
    async get(projectId: string) {
      const row = await findProjectWebhook(db, projectId);
      return row && { createdAt: row.createdAt, updatedAt: row.updatedAt };
    },

    /**
     * Makes the webhook, or gives it a new secret (the old one stops at once); the secret and the
     * token for GitLab's webhook (forge-events.ts), this once.
     */
    async enable(project: {
      id: string;
      name: string;
      teamId: string;
    }): Promise<{ secret: string; gitlabToken: string }> {
      const secret = `whsec_${randomBytes(32).toString("base64url")}`;
      const existing = await findProjectWebhook(db, project.id);
      const botUserId =
        existing?.botUserId ??
        (await createTeamBot(db, { teamId: project.teamId, name: `Webhook · ${project.name}`, role: "member" })).id;
      await saveProjectWebhook(db, { projectId: project.id, botUserId, ...cipher.seal(secret) });
      return { secret, gitlabToken: gitlabToken(secret) };
    },

    disable: (project: { id: string; teamId: string }) => deleteProjectWebhook(db, project.id, project.teamId),

    /** Checks a signed delivery of the generic format (lib/webhooks.ts). */
    async verify(
      projectId: string,
      headers: { timestamp: string | null; delivery: string | null; signature: string | null },
      body: Buffer,
      now = Date.now(),
    ): Promise<WebhookCheck> {
      const found = await keyOf(projectId);
      // One answer for "no such project" and "no webhook": the URL says nothing about the project.
      if (!found) return { ok: false, status: 404, message: "No webhook here." };
      const { timestamp, delivery, signature } = headers;
      if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !delivery || !/^[\w.:-]{8,200}$/.test(delivery) || !signature)
        return { ok: false, status: 401, message: "Sign the delivery: timestamp, delivery id and signature headers." };
      const expected = `sha256=${createHmac("sha256", found.key).update(`${timestamp}.${delivery}.`).update(body).digest("hex")}`;
      if (!sameText(signature, expected)) return { ok: false, status: 401, message: "The signature does not match." };
      if (Math.abs(now / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS)
        return { ok: false, status: 401, message: "The timestamp is too old or in the future." };
      if (!(await firstDelivery(projectId, delivery, now)))
        return { ok: false, status: 409, message: "This delivery was received already." };
      return { ok: true, botUserId: found.row.botUserId };
    },

    /**
     * Checks a forge's delivery (forge-events.ts): signed with the project's secret by the forge's
     * scheme, its delivery id never seen before. Forges send no signed timestamp: the comment's own
     * date bounds how late a captured delivery could come back (forge-requests.ts).
     */
    async verifyForge(
      projectId: string,
      delivery: ForgeDelivery,
      body: Buffer,
      now = Date.now(),
    ): Promise<WebhookCheck> {
      const found = await keyOf(projectId);
      if (!found) return { ok: false, status: 404, message: "No webhook here." };
      if (!delivery.delivery || !/^[\w.:-]{8,200}$/.test(delivery.delivery))
        return { ok: false, status: 401, message: "The delivery has no delivery id." };
      if (!signedWith(delivery, found.key, body))
        return { ok: false, status: 401, message: "The signature does not match." };
      if (!(await firstDelivery(projectId, `${delivery.forge}:${delivery.delivery}`, now)))
        return { ok: false, status: 409, message: "This delivery was received already." };
      return { ok: true, botUserId: found.row.botUserId };
    },

    /**
     * Forgets a forge's delivery taken by verifyForge, when it failed for a reason of the moment (the
     * forge did not answer): a forge's redelivery keeps its delivery id and would be refused.
     */
    forgetForge: (projectId: string, delivery: ForgeDelivery) =>
      forgetWebhookDelivery(db, projectId, `${delivery.forge}:${delivery.delivery}`),

    /** Records `key` (a forge's comment id) as seen; false when it was already. */
    once: (projectId: string, key: string, now = Date.now()) => firstDelivery(projectId, key, now),
  };
}

/** How long a delivery id is remembered; a forge comment older than this starts nothing. */
export const DELIVERY_MEMORY_MS = 86_400_000;

export type ProjectWebhooks = ReturnType<typeof createProjectWebhooks>;

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
