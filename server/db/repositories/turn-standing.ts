import type { Db } from "@/server/db/client";

// Whether a session's turn may still run (server/services/turn-authority.ts): its person, the API
// token it runs under (agent_session.turnTokenId, a sub-agent's its parent's), and their places in
// the project's team.

export type TurnStanding = {
  projectId: string;
  /** The person the turn works for: not disabled, and in the project's team. */
  person: { live: boolean; member: boolean };
  /** The API token the turn runs under, null without one (a browser login, Tandem's own callers). */
  token: { id: string; ownerId: string | null; live: boolean; ownerMember: boolean } | null;
};

/**
 * Records the API token the session's turn runs under from now on (null: a browser login, or
 * Tandem itself); true when that changed it.
 */
export async function setSessionTurnToken(db: Db, sessionId: string, tokenId: string | null): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE agent_session SET "turnTokenId" = ${tokenId}::text
    WHERE id = ${sessionId} AND "turnTokenId" IS DISTINCT FROM ${tokenId}::text`;
  return changed > 0;
}

/** How far up a sub-agent's parents the token is looked for (sub-agents of sub-agents are few levels deep). */
const MAX_PARENTS = 8;

/**
 * Read now, as findLiveApiToken would judge the token; null when the session is gone. A sub-agent's
 * session runs under its parents' token: a background one outlives the turn that started it.
 */
export async function findTurnStanding(db: Db, sessionId: string, userId: string): Promise<TurnStanding | null> {
  const select = { projectId: true, parentId: true, turnTokenId: true, project: { select: { teamId: true } } };
  const session = await db.agentSession.findUnique({ where: { id: sessionId }, select });
  if (!session) return null;
  let tokenId = session.turnTokenId;
  for (let up = session.parentId, depth = 0; !tokenId && up && depth < MAX_PARENTS; depth++) {
    const parent = await db.agentSession.findUnique({
      where: { id: up },
      select: { parentId: true, turnTokenId: true },
    });
    tokenId = parent?.turnTokenId ?? null;
    up = parent?.parentId ?? null;
  }
  const { teamId } = session.project;
  const member = async (id: string) => (await db.teamMember.count({ where: { teamId, userId: id } })) > 0;
  const [live, isMember, token] = await Promise.all([
    db.user.count({ where: { id: userId, disabledAt: null } }),
    member(userId),
    tokenId
      ? db.apiToken.findUnique({
          where: { id: tokenId },
          select: { userId: true, revokedAt: true, expiresAt: true, user: { select: { disabledAt: true } } },
        })
      : null,
  ]);
  return {
    projectId: session.projectId,
    person: { live: live > 0, member: isMember },
    token: tokenId
      ? {
          id: tokenId,
          ownerId: token?.userId ?? null,
          live: !!token && !token.revokedAt && token.expiresAt > new Date() && !token.user.disabledAt,
          ownerMember: token ? await member(token.userId) : false,
        }
      : null,
  };
}
