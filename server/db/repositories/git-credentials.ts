import type { Db } from "@/server/db/client";

/** What is ever shown of a credential: never its token or private key (an ssh key's public fingerprint is shown). */
export type GitCredentialInfo = {
  id: string;
  name: string;
  host: string;
  username: string;
  kind: string;
  fingerprint: string | null;
  teamId: string | null;
  createdAt: Date;
};
export type SealedCredential = GitCredentialInfo & { userId: string | null; keyId: string; secret: Uint8Array };

const infoSelect = {
  id: true,
  name: true,
  host: true,
  username: true,
  kind: true,
  fingerprint: true,
  teamId: true,
  createdAt: true,
} as const;

export async function createGitCredential(
  db: Db,
  input: {
    name: string;
    host: string;
    username: string;
    kind: "token" | "ssh-key";
    fingerprint?: string;
    owner: { userId: string } | { teamId: string };
    createdById: string;
    keyId: string;
    secret: Buffer;
  },
): Promise<GitCredentialInfo> {
  const { owner, secret, ...rest } = input;
  return db.gitCredential.create({ data: { ...rest, ...owner, secret: new Uint8Array(secret) }, select: infoSelect });
}

export async function listUserGitCredentials(db: Db, userId: string): Promise<GitCredentialInfo[]> {
  return db.gitCredential.findMany({ where: { userId }, select: infoSelect, orderBy: { createdAt: "asc" } });
}

export async function listTeamGitCredentials(db: Db, teamId: string): Promise<GitCredentialInfo[]> {
  return db.gitCredential.findMany({ where: { teamId }, select: infoSelect, orderBy: { createdAt: "asc" } });
}

/** The credentials a person may use in a team's project: their own, then the team's. */
export async function usableGitCredentials(db: Db, userId: string, teamId: string): Promise<SealedCredential[]> {
  const rows = await db.gitCredential.findMany({
    where: { OR: [{ userId }, { teamId }] },
    select: { ...infoSelect, userId: true, keyId: true, secret: true },
    orderBy: { createdAt: "asc" },
  });
  return [...rows.filter((r) => r.userId), ...rows.filter((r) => !r.userId)];
}

export async function deleteUserGitCredential(db: Db, userId: string, id: string): Promise<boolean> {
  return (await db.gitCredential.deleteMany({ where: { id, userId } })).count > 0;
}

export async function deleteTeamGitCredential(db: Db, teamId: string, id: string): Promise<boolean> {
  return (await db.gitCredential.deleteMany({ where: { id, teamId } })).count > 0;
}

/** Sealed credentials under another key than `keyId`, for re-sealing after the secret changed. */
export async function listGitCredentialsNotUnder(db: Db, keyId: string) {
  return db.gitCredential.findMany({
    where: { keyId: { not: keyId } },
    select: { id: true, keyId: true, secret: true },
  });
}

export async function resealGitCredential(db: Db, id: string, sealed: { keyId: string; secret: Buffer }) {
  await db.gitCredential.update({
    where: { id },
    data: { keyId: sealed.keyId, secret: new Uint8Array(sealed.secret) },
  });
}

export async function getPullMode(db: Db, projectId: string): Promise<"merge" | "rebase"> {
  const row = await db.project.findUnique({ where: { id: projectId }, select: { gitPullMode: true } });
  return row?.gitPullMode === "rebase" ? "rebase" : "merge";
}

export async function setPullMode(db: Db, projectId: string, mode: "merge" | "rebase") {
  await db.project.update({ where: { id: projectId }, data: { gitPullMode: mode } });
}

/** The remote Tandem stored for a project (null: none recorded yet). */
export async function getGitRemote(db: Db, projectId: string): Promise<string | null> {
  return (
    (await db.project.findUnique({ where: { id: projectId }, select: { gitRemoteUrl: true } }))?.gitRemoteUrl ?? null
  );
}

export async function setGitRemote(db: Db, projectId: string, url: string) {
  await db.project.update({ where: { id: projectId }, data: { gitRemoteUrl: url } });
}

/** The forge a project admin said serves the project's remote (null: Tandem knows only well-known hosts). */
export async function getGitForge(db: Db, projectId: string): Promise<string | null> {
  return (await db.project.findUnique({ where: { id: projectId }, select: { gitForge: true } }))?.gitForge ?? null;
}

export async function setGitForge(db: Db, projectId: string, forge: string | null) {
  await db.project.update({ where: { id: projectId }, data: { gitForge: forge } });
}

/** The ssh host keys a project accepted on first use for `host` (`name` or `[name]:port`). */
export async function listKnownHostKeys(db: Db, projectId: string, host: string) {
  return db.gitKnownHost.findMany({
    where: { projectId, host },
    select: { host: true, keyType: true, key: true },
    orderBy: { createdAt: "asc" },
  });
}

export async function listProjectKnownHostKeys(db: Db, projectId: string) {
  return db.gitKnownHost.findMany({
    where: { projectId },
    select: { host: true, keyType: true, key: true, createdAt: true },
    orderBy: [{ host: "asc" }, { createdAt: "asc" }],
  });
}

/** Forgets a host's keys for a project: its next connection accepts the key the host presents then. */
export async function deleteKnownHostKeys(db: Db, projectId: string, host: string): Promise<number> {
  return (await db.gitKnownHost.deleteMany({ where: { projectId, host } })).count;
}

/** Records host keys accepted on first use; a key type already known for the host keeps its first key. */
export async function addKnownHostKeys(
  db: Db,
  projectId: string,
  keys: Array<{ host: string; keyType: string; key: string }>,
) {
  await db.gitKnownHost.createMany({ data: keys.map((k) => ({ projectId, ...k })), skipDuplicates: true });
}
