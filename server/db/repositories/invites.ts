import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { hashToken, newToken } from "@/server/db/tokens";

export async function createInvite(db: Db, input: { createdById: string; email?: string; ttlDays?: number }) {
  const { token, hash } = newToken();
  const expiresAt = new Date(Date.now() + (input.ttlDays ?? 7) * 86_400_000);
  const invite = await db.signupInvite.create({
    data: { tokenHash: hash, email: input.email?.toLowerCase(), createdById: input.createdById, expiresAt },
    select: { id: true, email: true, expiresAt: true },
  });
  await recordAudit(db, "signup_invite.created", { target: invite.id, detail: { email: invite.email } });
  return { ...invite, token };
}

/**
 * A sign-up link is its maker's word: it lets someone in only while its maker is still an admin
 * whose account is enabled (not after a demotion, say by the provider's groups, or a disabling).
 */
const MAKER_STILL_ADMIN = { role: "admin", disabledAt: null } as const;

export type InviteCheck = { ok: true; id: string } | { ok: false; reason: string };

export async function checkInvite(db: Db, token: string, email: string): Promise<InviteCheck> {
  const invite = await db.signupInvite.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      email: true,
      expiresAt: true,
      usedAt: true,
      createdBy: { select: { role: true, disabledAt: true } },
    },
  });
  if (!invite) return { ok: false, reason: "This invitation link is not valid." };
  if (invite.usedAt) return { ok: false, reason: "This invitation link has already been used." };
  if (invite.createdBy.role !== MAKER_STILL_ADMIN.role || invite.createdBy.disabledAt)
    return {
      ok: false,
      reason: "This invitation link has ended: the admin who made it no longer invites. Ask an admin for a new one.",
    };
  if (invite.expiresAt < new Date())
    return { ok: false, reason: "This invitation link has expired. Ask an admin for a new one." };
  if (invite.email && invite.email !== email.toLowerCase()) {
    return { ok: false, reason: "This invitation was made for another email address." };
  }
  return { ok: true, id: invite.id };
}

// Marks an invite used; false when someone else used it first, or its maker stopped being an admin since the check.
export async function consumeInvite(db: Db, id: string): Promise<boolean> {
  const { count } = await db.signupInvite.updateMany({
    where: { id, usedAt: null, createdBy: MAKER_STILL_ADMIN },
    data: { usedAt: new Date() },
  });
  return count === 1;
}

export async function listInvites(db: Db) {
  return db.signupInvite.findMany({
    where: { usedAt: null, expiresAt: { gt: new Date() }, createdBy: MAKER_STILL_ADMIN },
    select: { id: true, email: true, expiresAt: true, createdAt: true },
    orderBy: { createdAt: "desc" },
  });
}

export async function revokeInvite(db: Db, id: string) {
  const { count } = await db.signupInvite.deleteMany({ where: { id, usedAt: null } });
  if (count) await recordAudit(db, "signup_invite.revoked", { target: id });
}
