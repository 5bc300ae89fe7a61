import { authorizeSession, WRITE_ROLES } from "@/server/api/access";
import { touchedFiles, touchedOnly } from "@/server/api/share-files";
import { createContext } from "@/server/api/context";
import { openFilesRoom } from "@/server/bus/presence";
import { headersOf } from "@/server/http/headers";
import { followAccess, projectSocketCaller, refuseUpgrade, type SocketUpgrade } from "@/server/http/project-sockets";
import { serveLiveDoc } from "@/server/live-docs/live-doc-socket";
import { NotLiveError } from "@/server/live-docs/live-docs";
import { isWorkspaceError } from "@/server/workspace";
import { colorOf, LiveDocCloseCode } from "@/lib/live-doc-protocol";

/**
 * A live document socket is checked like a language socket: signed in, a member with read rights
 * (viewers watch; members and owners write, asked again for every edit), forwarded to the
 * project's holder in a cluster. The path is resolved by the server's workspace; a file that is
 * not shared live is told so in the close reason, and the editor opens it the old way.
 */
export async function upgradeLiveDoc({ services, route, wss, req, socket, head, url }: SocketUpgrade) {
  if (url.searchParams.has("share")) return upgradeLinkedLiveDoc({ services, route, wss, req, socket, head, url });
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, user, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  const projectId = found.project.id;
  const workspace = await services.files.open(projectId);
  const opened = await services.liveDocs
    .open(projectId, workspace, url.searchParams.get("path") ?? "")
    .catch((error: unknown) => {
      if (error instanceof NotLiveError || isWorkspaceError(error)) return { refusal: error.message };
      throw error;
    });
  let role = found.role;
  const writer = WRITE_ROLES.includes(role);
  const canWrite = () => WRITE_ROLES.includes(role);
  wss.handleUpgrade(req, socket, head, (ws) => {
    if ("refusal" in opened) return ws.close(LiveDocCloseCode.notLive, opened.refusal.slice(0, 120));
    const stopClosed = services.liveDocs.onClosed(projectId, () =>
      ws.close(LiveDocCloseCode.reconnect, "The document moved; reconnecting."),
    );
    followAccess(services, caller, projectId, ws, (now) => {
      role = now;
      // A writer downgraded reconnects once its new role is settled, so its editor turns read-only.
      if (writer && !WRITE_ROLES.includes(now))
        setTimeout(() => {
          if (!canWrite()) ws.close(LiveDocCloseCode.reconnect, "Your role changed; reconnecting.");
        }, 500).unref();
    });
    // The explorer shows who has which file open, across instances (the presence bus).
    const leaveRoom = services.presence.join(openFilesRoom(projectId), {
      key: `user:${user.id}\u0000${opened.doc.path}`,
      userId: user.id,
      name: user.name,
      guest: false,
      place: opened.doc.path,
    });
    serveLiveDoc(ws, opened.doc, {
      who: { name: user.name, color: colorOf(user.id) },
      canWrite,
      onClose: () => {
        leaveRoom();
        stopClosed();
        opened.leave();
      },
    });
  });
}

/**
 * A live document opened through a share link (`share` = its token, `sessionId`, `path`): only a
 * file the session touched (judged by the file the name leads to, as share.read does), always
 * read-only whatever the socket sends, and closed the moment the link is revoked or expires.
 */
async function upgradeLinkedLiveDoc({ services, route, wss, req, socket, head, url }: SocketUpgrade) {
  const caller = { ...(await createContext(services, headersOf(req))), shareToken: url.searchParams.get("share") };
  const sessionId = url.searchParams.get("sessionId") ?? "";
  const access = /^[0-9a-f-]{36}$/i.test(sessionId)
    ? await authorizeSession(caller, sessionId, "view").catch(() => null)
    : null;
  const link = access?.link;
  if (!access || !link) return refuseUpgrade(socket, 404, "Not Found");
  const projectId = access.project.id;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, projectId, route.arrival))) return;
  const file = url.searchParams.get("path") ?? "";
  const touched = await touchedFiles(services.db, access.session.id);
  const workspace = await services.files.open(projectId);
  // Live documents are the main tree's files: a session on a branch of its own has none (the
  // link reads its tree's files through share.read).
  const opened = access.session.treeId
    ? { refusal: "This session works on a branch of its own: its files are not shared live." }
    : touched.includes(file)
      ? await services.liveDocs
          .open(projectId, workspace, file, touchedOnly(touched, workspace.root, file))
          .catch((error: unknown) => {
            if (error instanceof NotLiveError || isWorkspaceError(error)) return { refusal: error.message };
            throw error;
          })
      : { refusal: "This link opens only the files its session touched." };
  wss.handleUpgrade(req, socket, head, (ws) => {
    if ("refusal" in opened) return ws.close(LiveDocCloseCode.notLive, opened.refusal.slice(0, 120));
    const end = (reason: string) => ws.close(LiveDocCloseCode.accessEnded, reason);
    const stopRevoked = services.linkRevocations.subscribe(link.id, () => end("This share link was revoked."));
    // The link lasts while its maker could still share the session (server/api/access.ts).
    const stopMaker = services.accessChanges.subscribe({ linkMakerId: link.createdById, sessionId }, () => {
      authorizeSession(caller, sessionId, "view").catch(() => end("This share link ended."));
    });
    const expiry = setTimeout(
      () => end("This share link has expired."),
      Math.min(Math.max(0, link.expiresAt.getTime() - Date.now()), 2 ** 31 - 1),
    );
    const stopClosed = services.liveDocs.onClosed(projectId, () =>
      ws.close(LiveDocCloseCode.reconnect, "The document moved; reconnecting."),
    );
    const user = caller.user;
    serveLiveDoc(ws, opened.doc, {
      who: user ? { name: user.name, color: colorOf(user.id) } : { name: "Guest", color: colorOf(`link:${link.id}`) },
      canWrite: () => false,
      onClose: () => {
        stopRevoked();
        stopMaker();
        clearTimeout(expiry);
        stopClosed();
        opened.leave();
      },
    });
  });
}
