// How many WebSockets the preview proxy keeps open. Each one costs the server two descriptors for
// as long as it lasts (the browser's connection and the one into the workspace's network), however
// little it carries, and a previewed app takes every upgrade it is asked for: without a bound,
// whoever held a public link (or a member's page, in a loop) opened WebSockets until the server had
// no descriptor left for anything, every team's requests included. Plain requests are bounded
// already (64 upstream connections per preview session, upstream.ts); hot reload takes one
// WebSocket per open tab. Bounds per instance: a cluster's instances each keep their own.

export type SocketLimits = {
  /** Under one preview session (a person on a port under one login, or a public link). */
  session: number;
  /**
   * Through one project's public links together: a project's links, held by strangers, never
   * leave its own people without hot reload (they are bounded per person instead).
   */
  project: number;
  /** A person's, over all projects and logins (each of their projects would otherwise bring its own). */
  person: number;
  /** The instance's, whoever opens them: what is left of the descriptors stays for everything else. */
  all: number;
};

export const SOCKET_LIMITS: SocketLimits = { session: 64, project: 256, person: 256, all: 4096 };

export function createSocketPlaces(limits: SocketLimits = SOCKET_LIMITS) {
  const open = new Map<string, number>();
  return {
    /**
     * A place for one WebSocket of `session` (its held key) in `projectId`, by `userId` when a
     * person opens it (otherwise through a public link); its release (once), or null when any of
     * its bounds is reached.
     */
    take(session: string, projectId: string, userId: string | undefined): (() => void) | null {
      const bounds: [string, number][] = [
        [`session:${session}`, limits.session],
        userId === undefined ? [`links:${projectId}`, limits.project] : [`person:${userId}`, limits.person],
        ["all", limits.all],
      ];
      if (bounds.some(([key, most]) => (open.get(key) ?? 0) >= most)) return null;
      for (const [key] of bounds) open.set(key, (open.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const [key] of bounds) {
          const left = open.get(key)! - 1;
          if (left > 0) open.set(key, left);
          else open.delete(key);
        }
      };
    },
  };
}
