import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { PREVIEW_MAX_BYTES } from "@/lib/first-screen";
import type { Auth } from "@/server/auth/auth";
import type { LoginCache } from "@/server/auth/login-cache";
import type { Db } from "@/server/db/client";
import { findProjectForUser, lastWorkedProjectId } from "@/server/db/repositories/projects";
import { listSessions } from "@/server/db/repositories/sessions";
import type { LiveDocs } from "@/server/live-docs/live-docs";
import type { ProjectFiles } from "@/server/services/project-files";
import { changeCursor, isWorkspaceError, type Workspace } from "@/server/workspace";

// What the IDE's first screen reads besides the database (lib/first-screen.ts): a folder's entries
// with the cursor of its change stream, and the text an open tab shows before its editor is in. The
// fs router answers with these, and start-up warms them (warmUpFirstScreen).

/** One folder's entries, and the cursor of the change stream taken before they were read (fs.changes starts there). */
export async function folderEntries(workspace: Workspace, folder: string, showIgnored: boolean) {
  const cursor = await changeCursor(workspace.root);
  const entries = await workspace.list(folder);
  return { entries: showIgnored ? entries : entries.filter((entry) => !entry.ignored), cursor };
}

/**
 * The text the editor will show for `file`: the live document's, unsaved edits and all, when the
 * file is open live here, without a disk read; otherwise the disk's. Null for a binary file or one
 * over PREVIEW_MAX_BYTES, which is not read whole for it.
 */
export async function previewText(
  liveDocs: LiveDocs,
  projectId: string,
  workspace: Workspace,
  file: string,
): Promise<{ content: string } | null> {
  const live = await liveDocs.textOf(projectId, workspace, file);
  if (live !== null) return Buffer.byteLength(live) <= PREVIEW_MAX_BYTES ? { content: live } : null;
  try {
    const read = await workspace.read(file, undefined, PREVIEW_MAX_BYTES);
    return read.kind === "text" ? { content: read.content } : null;
  } catch (error) {
    if (isWorkspaceError(error) && error.code === "TOO_LARGE") return null;
    throw error;
  }
}

export type FirstScreenDeps = {
  auth: Auth;
  logins: LoginCache;
  db: Db;
  files: ProjectFiles;
  liveDocs: LiveDocs;
  /** Whether this process serves projects' files itself (not in a cluster, where a project's holder does). */
  servesFiles: boolean;
};

/**
 * The first signed-in page load after a start answered its first-screen batch in ~80 ms, the next
 * ones in 15-20 (a small project; each piece warmed alone helped a little). With this, ~55 ms: the
 * rest is the tRPC path of a real login, which only a person's own first call takes.
 * What was cold: the login cookie's signature key and login-session query, the database's first
 * plans and connections for the project's access and sessions, the project's file watcher and its
 * first listing and read. The server pays for them here, at start-up, with no person: a signed
 * cookie for a login session that does not exist, the access and session queries for nobody, and
 * the main tree of the project worked in last read as the explorer and a reopened tab read it
 * (its watcher then lingers a minute, as after any listing). Nothing read leaves the process; a
 * failure only means the first visitor pays instead.
 */
export async function warmUpFirstScreen(deps: FirstScreenDeps): Promise<void> {
  const nobody = randomUUID();
  const cookie = await loginCookie(deps.auth, randomBytes(24).toString("base64url"));
  const projectId = await lastWorkedProjectId(deps.db);
  await Promise.all([
    deps.logins.fresh(new Headers({ cookie })),
    findProjectForUser(deps.db, projectId ?? nobody, nobody),
    listSessions(deps.db, projectId ?? nobody, { parentId: null }),
    projectId && deps.servesFiles ? readMainTree(deps, projectId) : null,
  ]);
}

/** The login cookie better-auth would set for a login session of `token`: its name, and the token signed with the server's secret. */
export async function loginCookie(auth: Auth, token: string): Promise<string> {
  const context = await auth.$context;
  const signature = createHmac("sha256", context.secret).update(token).digest("base64");
  return `${context.authCookies.sessionToken.name}=${encodeURIComponent(`${token}.${signature}`)}`;
}

async function readMainTree(deps: FirstScreenDeps, projectId: string): Promise<void> {
  const workspace = await deps.files.open(projectId);
  const { entries } = await folderEntries(workspace, "", true);
  const file = entries.find((entry) => entry.type === "file");
  if (file) await previewText(deps.liveDocs, projectId, workspace, file.path);
}
