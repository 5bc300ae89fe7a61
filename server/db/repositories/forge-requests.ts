import type { Db } from "@/server/db/client";

// Sessions that `@tandem` comments on a forge started (server/services/forge-requests.ts), and who
// on a forge may start one: a member of the project's team who stored a token of their own for the
// forge's host under that forge login.

export type ForgeRequestRow = {
  sessionId: string;
  projectId: string;
  forge: string;
  repo: string;
  kind: string;
  number: number;
  branch: string;
  state: string;
};

export async function createForgeRequest(db: Db, row: Omit<ForgeRequestRow, "state">): Promise<void> {
  await db.forgeRequest.create({ data: row });
}

export async function findForgeRequest(db: Db, sessionId: string): Promise<ForgeRequestRow | null> {
  return db.forgeRequest.findUnique({ where: { sessionId } });
}

/** The requests whose report has not gone out yet. */
export async function listWorkingForgeRequests(db: Db): Promise<ForgeRequestRow[]> {
  return db.forgeRequest.findMany({ where: { state: "working" } });
}

/** Marks the request done; false when another call did first (its report goes out once). */
export async function finishForgeRequest(db: Db, sessionId: string): Promise<boolean> {
  const { count } = await db.forgeRequest.updateMany({
    where: { sessionId, state: "working" },
    data: { state: "done" },
  });
  return count === 1;
}

/**
 * The team member (owner, admin or member: a viewer starts no work) whose own stored credential for
 * `host` carries the forge login `login`, or null. Team credentials do not count: they are the bot's.
 */
export async function findMemberByForgeLogin(
  db: Db,
  teamId: string,
  host: string,
  login: string,
): Promise<{ id: string; name: string; credential: { keyId: string; secret: Uint8Array } } | null> {
  const found = await db.gitCredential.findFirst({
    where: {
      host,
      username: { equals: login, mode: "insensitive" },
      user: {
        botTeamId: null,
        teamMemberships: { some: { teamId, role: { in: ["owner", "admin", "member"] } } },
      },
    },
    select: { keyId: true, secret: true, user: { select: { id: true, name: true } } },
  });
  return found?.user ? { ...found.user, credential: { keyId: found.keyId, secret: found.secret } } : null;
}

/** The team's first shared token for `host`, sealed: what Tandem pushes and comments with for forge requests. */
export async function findTeamForgeToken(db: Db, teamId: string, host: string) {
  return db.gitCredential.findFirst({
    where: { teamId, host, kind: "token" },
    orderBy: { createdAt: "asc" },
    select: { name: true, keyId: true, secret: true },
  });
}

/** The forge logins the team's shared tokens for `host` act as: comments by them are Tandem's own. */
export async function teamForgeLogins(db: Db, teamId: string, host: string): Promise<string[]> {
  const rows = await db.gitCredential.findMany({
    where: { teamId, host, kind: "token" },
    select: { username: true },
  });
  return rows.map((r) => r.username.toLowerCase());
}
