import type { AccessChanges } from "@/server/bus/access-changes";
import type { LinkRevocations } from "@/server/bus/link-revocations";
import type { Db } from "@/server/db/client";
import {
  findPreviewLink,
  findPreviewLinkByToken,
  previewAccess,
  previewLinkMakerRole,
  type PreviewLinkRow,
  previewBindingLasts,
} from "@/server/db/repositories/preview-ports";
import { spendToken } from "@/server/db/repositories/spent-tokens";
import { TOKEN_PATTERN } from "@/server/db/tokens";
import { bindingKey, type PreviewGrant } from "@/server/preview/preview-access";
import type { PreviewTarget } from "@/server/preview/preview-host";
import type { LivePreviewLink } from "@/server/preview/preview-server";
import { linkOpens, makerStillShares, memberMayOpen } from "@/server/preview/preview-visibility";

// Who gets through the preview proxy: a person while their role in the project and the port's
// visibility let them and the login session their preview was opened under lasts (the agent's
// browser: its agent session), a public link while it is live and names exactly this project's port.
//
// A page load is dozens of requests, so a person's "yes" is kept for a few seconds per project,
// port and login rather than read from the database for each: it is dropped the moment an access
// change concerns the person or the project (a role lowered, a member removed, the port made
// private, a login session ended by sign-out, revocation or a disabled account; on every
// instance, through the access-change bus), and an answer read while such a change came in is not
// kept, nor kept past the login's expiry. "No" is never kept. Open requests and sockets are ended
// at once when a change takes their access away (`onAccessEnd`), the login's expiry among them
// (the access-change bus follows the login each holds: server/auth/credential-expiries.ts), and when
// the preview session's own time is up. Public links are read each time (few, and revoked through
// their own bus), and open only while their maker could still make them (a writer in the project's
// team with an enabled account): what a link holds open ends when a change about its maker does.

export type PreviewGate = ReturnType<typeof createPreviewGate>;

/** How long a person's admission is trusted without an access change telling otherwise. */
const ADMITTED_TTL_MS = 5_000;

export function createPreviewGate(db: Db, linkRevocations: LinkRevocations, accessChanges: AccessChanges) {
  /** Whether the person may open the project's port now, read from the database. */
  async function personMayOpen(userId: string, projectId: string, port: number): Promise<boolean> {
    const found = await previewAccess(db, projectId, port, userId);
    return found !== null && memberMayOpen(found.role, found.visibility);
  }

  // Per project: the people admitted lately (key: person and port; value: until when), the reads
  // under way, and the subscription that drops them. Any change bumps `generation`, which tells a
  // read in flight that its answer went stale; the subscription exists before a read starts.
  type Kept = { until: Map<string, number>; reading: number; stop: () => void };
  const kept = new Map<string, Kept>();
  let generation = 0;
  const drop = (projectId: string) => {
    kept.get(projectId)?.stop();
    kept.delete(projectId);
  };
  const dropIdle = (projectId: string, entry: Kept) => {
    if (entry.until.size === 0 && entry.reading === 0 && kept.get(projectId) === entry) drop(projectId);
  };
  // A person's change (role, membership, login session) may touch any project: all is forgotten.
  accessChanges.subscribe({ everyone: true }, () => {
    generation++;
    for (const entry of kept.values()) entry.until.clear();
  });
  const keptFor = (projectId: string): Kept => {
    let entry = kept.get(projectId);
    if (!entry) {
      const stop = accessChanges.subscribe({ projectId }, () => {
        generation++;
        kept.get(projectId)?.until.clear();
      });
      entry = { until: new Map(), reading: 0, stop };
      kept.set(projectId, entry);
    }
    return entry;
  };

  async function personAdmitted(grant: PreviewGrant & { userId: string }): Promise<boolean> {
    const { userId, projectId, port } = grant;
    const key = `${userId}\u0000${port}\u0000${bindingKey(grant.by)}`;
    const entry = keptFor(projectId);
    const until = entry.until.get(key);
    if (until !== undefined && until > Date.now()) return true;
    entry.until.delete(key);
    const before = generation;
    entry.reading++;
    try {
      const [may, lasts] = await Promise.all([personMayOpen(userId, projectId, port), previewBindingLasts(db, grant)]);
      const ok = may && lasts !== null;
      if (ok && generation === before) {
        // Never kept past the login's expiry: at that moment it is read again (and refused).
        const expires = Math.min(Date.now() + ADMITTED_TTL_MS, lasts);
        entry.until.set(key, expires);
        setTimeout(() => {
          if (entry.until.get(key) === expires) entry.until.delete(key);
          dropIdle(projectId, entry);
        }, expires - Date.now()).unref();
      }
      return ok;
    } finally {
      entry.reading--;
      dropIdle(projectId, entry);
    }
  }

  /**
   * Calls `ended` at the grant's own expiry (a public link's session ends with the link, a
   * person's after 8 hours). The login a person's grant was opened under is followed by the
   * access-change bus, which tells at its expiry (server/auth/credential-expiries.ts). Returns the
   * function that stops it.
   */
  function expiry(grant: PreviewGrant, ended: () => void): () => void {
    // A millisecond over: a timer may fire up to one early by the clock the expiry is judged by.
    const timer = setTimeout(ended, Math.max(0, grant.exp - Date.now() + 1));
    timer.unref();
    return () => clearTimeout(timer);
  }

  /** A link's maker never changes: kept by link id, for following their access (onAccessEnd). */
  const makers = new Map<string, string | null>();
  async function linkLive(link: PreviewLinkRow | null, target: { projectId: string; port: number }) {
    if (link) makers.set(link.id, link.createdById);
    return !!link && linkOpens(link, target) && makerStillShares(await previewLinkMakerRole(db, link));
  }

  async function admits(grant: PreviewGrant): Promise<boolean> {
    if (grant.userId !== undefined) return personAdmitted(grant);
    return linkLive(await findPreviewLink(db, grant.linkId), grant);
  }

  /** Calls `ended` when a change about the link's maker leaves the grant's link dead; returns the stop. */
  function followMaker(grant: PreviewGrant & { linkId: string }, ended: () => void): () => void {
    let stop: (() => void) | null = null;
    let stopped = false;
    const follow = (makerId: string | null) => {
      if (stopped || !makerId) return;
      stop = accessChanges.subscribe(
        { linkMakerId: makerId },
        () => void admits(grant).then((ok) => ok || ended(), ended),
      );
      // A change between the admission's check and this subscription is not missed.
      admits(grant).then((ok) => ok || ended(), ended);
    };
    if (makers.has(grant.linkId)) follow(makers.get(grant.linkId) ?? null);
    else findPreviewLink(db, grant.linkId).then((link) => follow(link?.createdById ?? null), ended);
    return () => {
      stopped = true;
      stop?.();
    };
  }

  return {
    personMayOpen,
    admits,
    spendEntry: (entry: { nonce: string; exp: number }) =>
      spendToken(db, `preview-entry:${entry.nonce}`, new Date(entry.exp)),
    async link(token: string, target: PreviewTarget): Promise<LivePreviewLink | null> {
      // Found by the token's SHA-256, as share links are: the lookup's timing tells nothing of the token.
      const link = TOKEN_PATTERN.test(token) ? await findPreviewLinkByToken(db, token) : null;
      return link && (await linkLive(link, target)) ? link : null;
    },
    /**
     * Calls `ended` when the grant may no longer open its port: its link revoked, or a change of
     * the person's or the project's access (a login session of theirs ended among them; for the
     * agent's browser, its agent session deleted) or the login's expiry after which they may not
     * (asked again at once), or the grant's own expiry. Returns the function that stops listening.
     */
    onAccessEnd(grant: PreviewGrant, ended: () => void): () => void {
      const stopExpiry = expiry(grant, ended);
      if (grant.linkId !== undefined) {
        const stop = linkRevocations.subscribe(grant.linkId, ended);
        const stopMaker = followMaker(grant, ended);
        return () => {
          stop();
          stopMaker();
          stopExpiry();
        };
      }
      const agentSessionId = "agentSessionId" in grant.by ? grant.by.agentSessionId : null;
      const loginSessionId = "loginSessionId" in grant.by ? grant.by.loginSessionId : null;
      const stop = accessChanges.subscribe(
        { userId: grant.userId, loginSessionId, projectId: grant.projectId, sessionId: agentSessionId },
        (change) => {
          // An agent session's end reaches no project's or person's listener: what was kept goes here.
          if (change.kind === "session") {
            generation++;
            kept.get(grant.projectId)?.until.clear();
          }
          admits(grant).then((ok) => ok || ended(), ended);
        },
      );
      return () => {
        stop();
        stopExpiry();
      };
    },
  };
}
