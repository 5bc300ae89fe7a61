import type { Db } from "@/server/db/client";
import { findPreviewLink, findPreviewLinkByToken, previewAccess } from "@/server/db/repositories/preview-ports";
import { TOKEN_PATTERN } from "@/server/db/tokens";
import type { LinkRevocations } from "@/server/bus/link-revocations";
import type { PreviewGrant } from "@/server/preview/preview-access";
import type { PreviewTarget } from "@/server/preview/preview-host";
import type { LivePreviewLink } from "@/server/preview/preview-server";
import { linkOpens, memberMayOpen } from "@/server/preview/preview-visibility";

// Who gets through the preview proxy, read from the database on every request and socket: a
// person while their role in the project and the port's visibility let them, a public link while
// it is live and names exactly this project's port.

export type PreviewGate = ReturnType<typeof createPreviewGate>;

export function createPreviewGate(db: Db, linkRevocations: LinkRevocations) {
  /** Whether the person may open the project's port now. */
  async function personMayOpen(userId: string, projectId: string, port: number): Promise<boolean> {
    const found = await previewAccess(db, projectId, port, userId);
    return found !== null && memberMayOpen(found.role, found.visibility);
  }
  return {
    personMayOpen,
    async admits(grant: PreviewGrant): Promise<boolean> {
      if (grant.userId !== undefined) return personMayOpen(grant.userId, grant.projectId, grant.port);
      return linkOpens(await findPreviewLink(db, grant.linkId), grant);
    },
    async link(token: string, target: PreviewTarget): Promise<LivePreviewLink | null> {
      // Found by the token's SHA-256, as share links are: the lookup's timing tells nothing of the token.
      const link = TOKEN_PATTERN.test(token) ? await findPreviewLinkByToken(db, token) : null;
      return link && linkOpens(link, target) ? link : null;
    },
    onLinkRevoked: linkRevocations.subscribe,
  };
}
