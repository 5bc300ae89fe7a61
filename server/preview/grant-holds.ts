import { bindingKey, type PreviewGrant } from "./preview-access";

// The requests and sockets open under each grant (a public link, or a person on a port under one
// login or agent session), ended at once when a change takes its access away: one person's
// sign-out in one browser ends that browser's previews, not another's. Node's requests and
// WebSockets (preview-server.ts) and the native front's connections (front-admission.ts) are held
// here alike.

/** What a grant's holds are kept under: a public link, or a person on a port under one login or agent session. */
export const grantKey = (grant: PreviewGrant) =>
  grant.linkId !== undefined
    ? `link:${grant.linkId}`
    : `user:${grant.userId}\u0000${bindingKey(grant.by)}\u0000${grant.projectId}\u0000${grant.port}`;

export type GrantHolds = ReturnType<typeof createGrantHolds>;

export function createGrantHolds(deps: {
  /** Whether the grant may still open its port (preview-server.ts's PreviewServerDeps.admits). */
  admits(grant: PreviewGrant): Promise<boolean>;
  /** Calls `ended` when the grant's access ends; returns the stop (PreviewServerDeps.onAccessEnd). */
  onAccessEnd(grant: PreviewGrant, ended: () => void): () => void;
  /** Told first when a grant's access ends (its kept connections to the port are dropped). */
  ended(grant: PreviewGrant): void;
}) {
  const held = new Map<string, { ends: Set<() => void>; stop: () => void }>();

  /** Runs `end` when the grant's access ends, until the returned release is called. */
  function hold(grant: PreviewGrant, end: () => void): () => void {
    const key = grantKey(grant);
    let entry = held.get(key);
    if (!entry) {
      const ends = new Set<() => void>();
      const stop = deps.onAccessEnd(grant, () => {
        deps.ended(grant);
        for (const ending of [...ends]) ending();
      });
      entry = { ends, stop };
      held.set(key, entry);
    }
    const mine = entry;
    mine.ends.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      mine.ends.delete(end);
      if (mine.ends.size === 0 && held.get(key) === mine) {
        mine.stop();
        held.delete(key);
      }
    };
  }

  /**
   * Admits the request's session, held so that the end of its access ends `end` from now on:
   * listening starts before the check, so a change while it is checked is never missed. The hold
   * goes when `connection` closes, also while the check is under way: a connection dropped then
   * (in a loop, by whoever holds a public link) left its hold, socket and request behind for good.
   */
  async function admit(
    grant: PreviewGrant | null,
    connection: { on(event: "close", listener: () => void): unknown },
    end: () => void,
  ): Promise<{ ok: boolean; release: () => void }> {
    // An end told while the admission is asked (a login found over the moment it is followed,
    // server/auth/credential-expiries.ts) is a refusal, answered as one: nothing was let through yet.
    let ended = false;
    let admitted = false;
    const release = grant
      ? hold(grant, () => {
          ended = true;
          if (admitted) end();
        })
      : () => {};
    connection.on("close", release);
    const ok = grant !== null && (await deps.admits(grant).catch(() => false)) && !ended;
    if (ok) admitted = true;
    else release();
    return { ok, release };
  }

  return { hold, admit };
}
