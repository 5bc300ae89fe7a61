import type { TurnAuthority } from "@/server/agent/turn-authority";
import type { AccessChanges, AccessHolder } from "@/server/bus/access-changes";
import type { Db } from "@/server/db/client";
import { findTurnStanding, type TurnStanding } from "@/server/db/repositories/turn-standing";

// The agent's TurnAuthority port (server/agent/turn-authority.ts, which says what a turn runs
// under), bound to the database and the access-change bus. A running turn listens for changes
// about its person (removed from the team, disabled: published on every instance) and about the
// API token it runs under (revoked: a change about its owner; expired: the credential expiries of
// server/auth/credential-expiries.ts, which follow the token because the turn names it), and
// reads its standing again at each. The token followed is the one the session names now: a
// message sent meanwhile with another credential moves the turn onto it.

/** A standing that cannot be read (the database unreachable) is read again this much later; the turn runs on meanwhile. */
const RETRY_MS = 5_000;

/** Why a turn in this standing may not run, for its end in the session's log; null while it may. */
export function refusalOf(standing: TurnStanding | null): string | null {
  // A deleted session's turn is stopped by its deletion.
  if (!standing) return null;
  if (standing.token && !standing.token.live)
    return "Stopped: the API token this turn runs under was revoked or has expired. Send a message or resume to go on.";
  if (!standing.person.live) return "Stopped: the account this turn works for was disabled.";
  if (!standing.person.member || (standing.token && !standing.token.ownerMember))
    return "Stopped: the person this turn works for is no longer in the project's team.";
  return null;
}

export function createTurnAuthority(db: Db, changes: AccessChanges, retryMs = RETRY_MS): TurnAuthority {
  const standing = (turn: { sessionId: string; userId: string }) => findTurnStanding(db, turn.sessionId, turn.userId);
  return {
    refusal: async (turn) => refusalOf(await standing(turn)),
    // Told as a change about the session: its followers (on every instance) read it again, and
    // the connections watching it re-check their own access, which this does not change.
    rebound: (sessionId) => changes.publish({ kind: "session", sessionId }),
    follow(turn, refused) {
      let over = false;
      let reading = false;
      let again = false;
      let retry: NodeJS.Timeout | undefined;
      const listening = new Map<string, () => void>();
      const listen = (key: string, holder: AccessHolder) =>
        listening.set(
          key,
          changes.subscribe(holder, () => void check()),
        );
      const stop = () => {
        over = true;
        clearTimeout(retry);
        for (const unsubscribe of listening.values()) unsubscribe();
        listening.clear();
      };
      // One read at a time; a change told during one is read again after it.
      async function check(): Promise<void> {
        if (over) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            const now = await standing(turn);
            if (over) return;
            const reason = refusalOf(now);
            if (reason) {
              stop();
              refused(reason);
              return;
            }
            const token = now?.token?.ownerId ? { id: now.token.id, ownerId: now.token.ownerId } : null;
            const key = token ? `token:${token.id}` : null;
            for (const [held, unsubscribe] of listening)
              if (held !== "person" && held !== key) {
                unsubscribe();
                listening.delete(held);
              }
            if (token && key && !listening.has(key)) {
              listen(key, { userId: token.ownerId, tokenId: token.id });
              // Read once more now that it is followed: an end between the read and now is not missed.
              again = true;
            }
          } while (again);
        } catch {
          retry = setTimeout(() => void check(), retryMs);
          retry.unref();
        } finally {
          reading = false;
        }
      }
      listen("person", { userId: turn.userId, sessionId: turn.sessionId });
      void check();
      return stop;
    },
  };
}
