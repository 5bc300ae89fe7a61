import path from "node:path";
import type { Services } from "@/server/api/context";
import { listEvents } from "@/server/db/repositories/session-events";

// What a share link to a session opens of its project's files: those the session's tools read or
// changed, each judged by the file a name leads to once opened (share.read, the live document socket).

/** Paths the session's tools read or changed: what a share link lets its holder open. */
export async function touchedFiles(db: Parameters<typeof listEvents>[0], sessionId: string): Promise<string[]> {
  const calls = await listEvents(db, sessionId);
  const paths = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string" && value && !/[*?[\]{}]/.test(value)) paths.add(value.replace(/^\.\//, ""));
  };
  for (const call of calls) {
    if (call.type !== "tool_call" || (call.payload.kind !== "read" && call.payload.kind !== "edit")) continue;
    const input = (call.payload.input ?? {}) as { path?: unknown; paths?: unknown; edits?: unknown };
    add(input.path);
    if (Array.isArray(input.paths)) input.paths.forEach(add);
    if (Array.isArray(input.edits)) for (const edit of input.edits) add((edit as { path?: unknown } | null)?.path);
  }
  return [...paths].sort();
}

/**
 * The filter for Workspace.read (and a live document's opening) that admits only a file the
 * session touched, by where it really is: a member swapping a touched name for a link meanwhile gains nothing.
 */
export function touchedOnly(touched: readonly string[], root: string, requested: string) {
  const asTouched = (name: string) => (path.isAbsolute(name) ? path.relative(root, name) : path.normalize(name));
  return {
    admits: (real: string) => touched.some((name) => asTouched(name) === real),
    refusal: `'${requested}' is now a link to a file this session did not touch; this link opens only the files its session touched.`,
  };
}

/**
 * Where a share link reads its session's files: the session's own branch's worktree (a
 * sub-agent's: its parent's), else the main tree; null once that branch was discarded. The main
 * tree's file of a name the session touched on its branch is another file, which it never touched.
 */
export async function sessionFiles(
  services: Pick<Services, "trees" | "files">,
  session: { projectId: string; treeId: string | null },
) {
  const tree = await services.trees.resolve(session.projectId, session.treeId);
  return tree && services.files.openTree(tree);
}
