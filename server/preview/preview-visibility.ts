// Who may open a port's preview. A port is private by default: the project's writers (owner,
// admin, member: the people who run its code) open it. Team opens it to everyone in the project's
// team, viewers too. A public link (preview_link) opens it to whoever holds the link, until it
// expires or is revoked; a link opens its own project's port and no other.

export type PreviewVisibility = "private" | "team";
export const PREVIEW_VISIBILITIES: readonly PreviewVisibility[] = ["private", "team"];

const WRITERS = new Set(["owner", "admin", "member"]);

/** Whether a person with `role` in the project (null: none) may open a port of this visibility. */
export function memberMayOpen(role: string | null, visibility: PreviewVisibility): boolean {
  if (role === null) return false;
  return WRITERS.has(role) || visibility === "team";
}

export type PreviewLinkState = { projectId: string; port: number; expiresAt: Date; revokedAt: Date | null };

/**
 * Whether a link's maker, with this role in the project now (null: none, or a disabled account),
 * still vouches for it: a link is its maker's word, worth what they could still share (a writer's).
 */
export function makerStillShares(role: string | null): boolean {
  return role !== null && WRITERS.has(role);
}

/** Whether a public link opens this project's port now. */
export function linkOpens(
  link: PreviewLinkState | null,
  target: { projectId: string; port: number },
  now = new Date(),
): boolean {
  return (
    link !== null &&
    link.revokedAt === null &&
    link.expiresAt > now &&
    link.projectId === target.projectId &&
    link.port === target.port
  );
}
