import type http from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { authorizeProject, mayTypeInTerminal, WRITE_ROLES } from "@/server/api/access";
import { createContext, credentialOf, type Context, type Services } from "@/server/api/context";
import type { Arrival, WorkspaceForwarding } from "@/server/cluster/workspace-forwarding";
import type { ProjectRole } from "@/server/db/repositories/projects";
import { headersOf } from "@/server/http/headers";
import { handleLanguageSocket } from "@/server/language/language-socket";
import { TerminalCloseCode } from "@/lib/terminal-protocol";
import { MAIN_TREE, treeIdOf, treeKey } from "@/lib/trees";
import { treeNameSchema } from "@/lib/tree-schemas";

// The project's WebSockets other than tRPC's (terminals, language servers; live documents in
// live-doc-sockets.ts): each checks the caller against the project before it opens, may be
// forwarded to the instance holding the project, and follows the caller's access while open.

/** Set when the socket may still go to the project's holder (cluster forwarding). */
export type SocketRoute = { forwarding: WorkspaceForwarding; arrival: Arrival } | null;

/** One upgrade of a project socket: the request, its socket and first bytes, where it may be forwarded. */
export type SocketUpgrade = {
  services: Services;
  route: SocketRoute;
  wss: WebSocketServer;
  req: http.IncomingMessage;
  socket: Duplex;
  head: Buffer;
  url: URL;
};

export type ProjectSocketCaller = {
  caller: Context;
  user: NonNullable<Context["user"]>;
  found: Awaited<ReturnType<typeof authorizeProject>>;
};

/**
 * A project's socket opens only for a signed-in member with read rights: otherwise the upgrade is
 * answered with 401 or 404 (a project the caller may not see is not found) and null comes back.
 */
export async function projectSocketCaller(
  services: Services,
  req: http.IncomingMessage,
  socket: Duplex,
  url: URL,
): Promise<ProjectSocketCaller | null> {
  const caller = await createContext(services, headersOf(req));
  const user = caller.user;
  if (!user) {
    refuseUpgrade(socket, 401, "Unauthorized");
    return null;
  }
  const projectId = url.searchParams.get("projectId") ?? "";
  const found = /^[0-9a-f-]{36}$/i.test(projectId)
    ? await authorizeProject(caller, projectId, "read").catch(() => null)
    : null;
  if (!found) {
    refuseUpgrade(socket, 404, "Not Found");
    return null;
  }
  return { caller, user, found };
}

export function refuseUpgrade(socket: Duplex, status: number, message: string) {
  socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

// Every terminal socket is authenticated and checked against the project before it opens.
export async function upgradeTerminal({ services, route, wss, req, socket, head, url }: SocketUpgrade) {
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, user, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  const terminal = services.terminals.get(found.project.id, url.searchParams.get("terminalId") ?? "");
  if (!terminal) return refuseUpgrade(socket, 404, "Not Found");
  // Asked per message: the owner may grant or take back input while others are connected, and
  // the caller's role is read again whenever an access change concerns them or the project.
  let role = found.role;
  const canWrite = () => mayTypeInTerminal(role, user.id, terminal);
  wss.handleUpgrade(req, socket, head, (ws) => {
    followAccess(services, caller, found.project.id, ws, (now) => (role = now));
    services.terminals.attach(terminal, ws, { canWrite });
  });
}

/**
 * Keeps an open project socket's role true: when an access change concerns its person or project,
 * or the login or API token it was opened under reaches its expiry, the role is read again (nothing is written
 * meanwhile), and the socket is closed when access ended.
 */
export function followAccess(
  services: Services,
  caller: Context,
  projectId: string,
  ws: WebSocket,
  setRole: (role: ProjectRole) => void,
) {
  const ended = () => ws.close(TerminalCloseCode.accessEnded, "Your access to this project ended.");
  const recheck = async () => {
    const user = await caller.currentUser!();
    const still = user ? await authorizeProject({ ...caller, user }, projectId, "read").catch(() => null) : null;
    if (still) setRole(still.role);
    else ended();
  };
  const holder = { ...credentialOf(caller), projectId };
  const stop = services.accessChanges.subscribe(holder, () => {
    setRole("viewer");
    recheck().catch(ended);
  });
  ws.once("close", stop);
}

// A language socket is checked like a terminal's: signed in, a member of the project (read rights
// to use the server; edit rights to send the editor's unsaved text), and a server of its tree's
// registry (a built-in one or one its configuration adds).
export async function upgradeLanguage({ services, route, wss, req, socket, head, url }: SocketUpgrade) {
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  // `tree`: a session's worktree of this project gets language servers of its own (lib/trees.ts).
  const named = treeNameSchema.safeParse(url.searchParams.get("tree") ?? MAIN_TREE);
  const tree = named.success ? await services.trees.resolve(found.project.id, treeIdOf(named.data)) : null;
  if (!tree) return refuseUpgrade(socket, 404, "Not Found");
  const workspace = await services.files.openTree(tree);
  const registry = await services.language.registry(treeKey(tree), workspace);
  const spec = registry.spec(url.searchParams.get("server") ?? "");
  if (!spec) return refuseUpgrade(socket, 404, "Not Found");
  const hub = services.language.hub(treeKey(tree), workspace, spec.id);
  let role = found.role;
  const canWrite = () => WRITE_ROLES.includes(role);
  wss.handleUpgrade(req, socket, head, (ws) => {
    followAccess(services, caller, found.project.id, ws, (now) => (role = now));
    handleLanguageSocket(ws, hub, { root: workspace.root, canWrite });
  });
}
