import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

/** Who a secret belongs to: exactly one of a project, a team or a person. */
export type SecretOwner = { projectId: string } | { teamId: string } | { userId: string };

/** What is ever shown of a secret: its name and dates, never its value. */
export type SecretRow = { id: string; name: string; createdAt: Date; updatedAt: Date };
export type SealedSecret = { name: string; keyId: string; secret: Uint8Array };

const infoSelect = { id: true, name: true, createdAt: true, updatedAt: true } as const;
const sealedSelect = { name: true, keyId: true, secret: true } as const;

/** Sets a secret, replacing the value of one with the same name and owner. */
export async function putSecret(
  db: Db,
  owner: SecretOwner,
  input: { name: string; keyId: string; secret: Buffer; createdById: string },
): Promise<SecretRow> {
  const sealed = { keyId: input.keyId, secret: new Uint8Array(input.secret) };
  const existing = await db.secret.findFirst({ where: { ...owner, name: input.name }, select: { id: true } });
  const row = existing
    ? await db.secret.update({ where: { id: existing.id }, data: sealed, select: infoSelect })
    : await db.secret.create({
        data: { ...owner, name: input.name, createdById: input.createdById, ...sealed },
        select: infoSelect,
      });
  await recordAudit(db, "secret.set", {
    ...auditOwner(owner),
    target: row.id,
    detail: { name: row.name, replaced: !!existing },
  });
  return row;
}

/** Where a secret's audit row is filed (its value is never in it). */
function auditOwner(owner: SecretOwner) {
  if ("projectId" in owner) return { projectId: owner.projectId };
  if ("teamId" in owner) return { teamId: owner.teamId };
  return {};
}

export async function listSecrets(db: Db, owner: SecretOwner): Promise<SecretRow[]> {
  return db.secret.findMany({ where: owner, select: infoSelect, orderBy: { name: "asc" } });
}

export async function deleteSecret(db: Db, owner: SecretOwner, id: string): Promise<boolean> {
  const row = await db.secret.findFirst({ where: { ...owner, id }, select: { name: true } });
  const deleted = (await db.secret.deleteMany({ where: { ...owner, id } })).count > 0;
  if (deleted)
    await recordAudit(db, "secret.deleted", { ...auditOwner(owner), target: id, detail: { name: row?.name } });
  return deleted;
}

/** The sealed secrets a project's processes may get: the project's, its team's and (with a person) theirs. */
export async function sealedSecretsFor(
  db: Db,
  input: { projectId: string; personId: string | null },
): Promise<{ team: SealedSecret[]; project: SealedSecret[]; person: SealedSecret[] }> {
  const project = await db.project.findUnique({ where: { id: input.projectId }, select: { teamId: true } });
  if (!project) return { team: [], project: [], person: [] };
  const rows = await db.secret.findMany({
    where: {
      OR: [
        { projectId: input.projectId },
        ...(project.teamId ? [{ teamId: project.teamId }] : []),
        ...(input.personId ? [{ userId: input.personId }] : []),
      ],
    },
    select: { ...sealedSelect, projectId: true, teamId: true, userId: true },
  });
  const pick = (match: (r: (typeof rows)[number]) => boolean) =>
    rows.filter(match).map(({ name, keyId, secret }) => ({ name, keyId, secret }));
  return {
    team: pick((r) => r.teamId !== null),
    project: pick((r) => r.projectId !== null),
    person: pick((r) => r.userId !== null),
  };
}

/** Sealed secrets under another key than `keyId`, for sealing again after the server secret changed. */
export async function listSecretsNotUnder(db: Db, keyId: string) {
  return db.secret.findMany({ where: { keyId: { not: keyId } }, select: { id: true, keyId: true, secret: true } });
}

export async function resealSecret(db: Db, id: string, sealed: { keyId: string; secret: Buffer }) {
  await db.secret.update({ where: { id }, data: { keyId: sealed.keyId, secret: new Uint8Array(sealed.secret) } });
}
