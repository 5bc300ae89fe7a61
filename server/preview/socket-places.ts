// How many WebSockets the preview proxy keeps open, per preview session and per project. Each one
// costs the server two descriptors for as long as it lasts (the browser's connection and the one
// into the workspace's network), however little it carries, and a previewed app takes every
// upgrade it is asked for: without a bound, whoever holds a public link (or a member's page, in a
// loop) opened WebSockets until the server had no descriptor left for anything, every team's
// requests included. Plain requests are bounded already (64 upstream connections per session,
// upstream.ts); hot reload takes one WebSocket per open tab.

/** WebSockets open at once under one preview session (a person on a port under one login, or a public link). */
export const MAX_SOCKETS_PER_GRANT = 64;
/** WebSockets open at once to one project's previews, on one instance. */
export const MAX_SOCKETS_PER_PROJECT = 256;

export function createSocketPlaces() {
  const open = new Map<string, number>();
  const change = (key: string, by: number) => {
    const count = (open.get(key) ?? 0) + by;
    if (count > 0) open.set(key, count);
    else open.delete(key);
  };
  return {
    /** A place for one WebSocket of `session` (its held key) in `projectId`; its release (once), or null when either is full. */
    take(session: string, projectId: string): (() => void) | null {
      const keys = [`session:${session}`, `project:${projectId}`];
      if ((open.get(keys[0]!) ?? 0) >= MAX_SOCKETS_PER_GRANT || (open.get(keys[1]!) ?? 0) >= MAX_SOCKETS_PER_PROJECT)
        return null;
      for (const key of keys) change(key, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const key of keys) change(key, -1);
      };
    },
  };
}
