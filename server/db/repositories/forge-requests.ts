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
 * The team members (owner, admin or member: a viewer starts no work) whose own stored credentials
 * for `host` carry the forge login `login`, each with their newest such credential, a few members at
 * most: a login is only what a member typed, so the caller asks the forge which of them really
 * signs in as it. Team credentials do not count: they are the bot's.
 */
export async function findMembersByForgeLogin(
  db: Db,
  teamId: string,
  host: string,
  login: string,
): Promise<Array<{ id: string; name: string; credential: { keyId: string; secret: Uint8Array } }>> {
  const found = await db.gitCredential.findMany({
    where: {
      host,
      username: { equals: login, mode: "insensitive" },
      user: {
        botTeamId: null,
        teamMemberships: { some: { teamId, role: { in: ["owner", "admin", "member"] } } },
      },
    },
    select: { keyId: true, secret: true, user: { select: { id: true, name: true } } },
    // One credential per member (their newest under the login), so that however many one member
    // files under a teammate's login, the teammate's own is among those asked.
    distinct: ["userId"],
    orderBy: { createdAt: "desc" },
    take: 5,
  });
  return found.flatMap((row) =>
    row.user ? [{ ...row.user, credential: { keyId: row.keyId, secret: row.secret } }] : [],
  );
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
