import type { Previews } from "@/server/preview/previews";
import type { PreviewGate } from "@/server/services/preview-gate";
import type { Auth } from "@/server/auth/auth";
import type { Login, LoginCache } from "@/server/auth/login-cache";
import type { LanguageServers } from "@/server/language/language-servers";
import type { LiveDocs } from "@/server/live-docs/live-docs";
import type { Config } from "@/server/env/config";
import type { Db } from "@/server/db/client";
import type { TokenGrant } from "@/server/auth/api-tokens";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import type { Presence } from "@/server/bus/presence";
import type { LinkRevocations } from "@/server/bus/link-revocations";
import type { CredentialExpiries } from "@/server/auth/credential-expiries";
import type { AccessHolder } from "@/server/bus/access-changes";
import type { RateLimits } from "./rate-limit";
import type { AppUser } from "@/server/db/repositories/users";
import type { ProjectFiles } from "@/server/services/project-files";
import type { TerminalService } from "@/server/terminal";
import type { AgentRuntime } from "@/server/agent/runtime";
import type { ModelRegistry } from "@/server/agent/providers";
import type { Extensions } from "@/server/services/extensions";
import type { ProjectCheckpoints } from "@/server/services/checkpoints";
import type { SessionBoard } from "@/server/services/session-board";
import type { Notifications } from "@/server/services/notifications";
import type { ProjectChannelService } from "@/server/services/project-channels";
import type { InboxChanges } from "@/server/bus/inbox-changes";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { ProjectNetwork } from "@/server/services/network";
import type { ProjectEnvironment } from "@/server/services/project-environment";
import type { ProjectGit } from "@/server/services/project-git";
import type { SessionTrees } from "@/server/services/session-trees";
import type { ProjectWebhooks } from "@/server/services/project-webhooks";
import type { ForgeRequests } from "@/server/services/forge-requests";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import type { TrackedChange } from "@/server/workspace";
import type { WorkspaceHost } from "@/server/cluster/workspace-host";

// Who calls and with what: the services every procedure and socket works with, and the caller's
// context, built per HTTP call and per WebSocket connection.

export type Services = {
  config: Config;
  db: Db;
  auth: Auth;
  /** The signed-in user of an HTTP call, briefly kept per cookie (dropped on any access change). */
  logins: LoginCache;
  files: ProjectFiles;
  terminals: TerminalService;
  /** Each project's language servers, shared by editors (the language socket) and the agent. */
  language: LanguageServers;
  /** The files open live in this instance's projects: shared Yjs documents (the live document socket). */
  liveDocs: LiveDocs;
  /** The agent runtime (sessions, turns, approvals, live streams) and the model registry. */
  agent: AgentRuntime;
  models: ModelRegistry;
  /** MCP servers and discovered tools, knowledge index, scheduled tasks, mail (absent in some tests). */
  extensions?: Extensions;
  /** Each project's checkpoint store (snapshots the agent's turns; the Changes view and restores). */
  checkpoints: ProjectCheckpoints;
  /** The live board of each project's sessions (and who is told when review comments change). */
  board: SessionBoard;
  /** People's inboxes and their delivery (email, chat webhooks, digests); the inbox bus tells their tabs. */
  notifications: Notifications;
  inboxChanges: InboxChanges;
  /** Projects' chat channels (send_message). */
  channels: ProjectChannelService;
  /** Git in each project's sandbox (Source Control panel, clones), and the credentials' cipher. */
  git: ProjectGit;
  gitCipher: CredentialCipher;
  /** Sessions on branches of their own: their worktrees, merge into the base, discard. */
  trees: SessionTrees;
  /** Each project's inbound webhook: its secret, its account, and the check of each delivery. */
  webhooks: ProjectWebhooks;
  /** `@tandem` comments on a forge's issues and pull requests: the sessions they start and their reports. */
  forgeRequests: ForgeRequests;
  /** Who watches and types in each session (ephemeral), and live share-link revocations. */
  presence: Presence;
  linkRevocations: LinkRevocations;
  /**
   * Memberships and roles changed, login sessions and API tokens ended or expired, projects and
   * sessions deleted: open connections re-check.
   */
  accessChanges: CredentialExpiries;
  limits: RateLimits;
  /** How project processes are started (server/sandbox) and the projects' network policies and connection logs. */
  sandbox: Sandbox;
  network: ProjectNetwork;
  /** Each project's toolchains and setup script (docs/environments.md). */
  environment: ProjectEnvironment;
  /** Previews of the workspaces' servers on an origin of their own (server/preview). */
  previews: Previews;
  /** Who may open each port's preview: the person's role and the port's visibility, or a live public link. */
  previewGate: PreviewGate;
  /**
   * In a cluster (TANDEM_CLUSTER): where each project's live resources are served, and the key that
   * signs requests forwarded there. `runner`: this process is a workspace runner, serving only signed requests.
   * `followFiles`: a project's file changes as its holder's watcher saw them, through the cluster's
   * bus (fs.changes; null without the Postgres bus: then each instance watches the disk itself).
   */
  workspaces?: {
    host: WorkspaceHost;
    forwardingSecret: string;
    runner: boolean;
    followFiles: ((projectId: string, signal?: AbortSignal) => AsyncIterableIterator<TrackedChange>) | null;
  };
};

/**
 * The caller: the signed-in user (login-session cookie), and the share-link token they present
 * (the /s/<token> page sends it as the `x-tandem-share` header, or as the `shareToken` connection
 * param of the tRPC WebSocket). The token is checked on every call (server/api/access.ts).
 */
export type Context = {
  user: AppUser | null;
  /** The API token the call was made with (server/auth/api-tokens.ts); null for a browser login. */
  token?: TokenGrant | null;
  /**
   * The id of the browser login session the call came with (null for a token, absent in in-process
   * callers): a preview's entry link is bound to it, and ends with it.
   */
  loginSessionId?: string | null;
  services: Services;
  shareToken?: string | null;
  clientIp?: string;
  /**
   * The login session's user as it is now. A WebSocket connection outlives its sign-in, so each
   * call over it resolves its user again (briefly cached, dropped on an access change), and live
   * subscriptions re-check with it. Absent in in-process callers (tests), which keep `user`.
   */
  currentUser?: () => Promise<AppUser | null>;
  /**
   * `user` was read for this very call (an HTTP request's context, made moments before the
   * procedure runs): the procedure takes it as current instead of reading the login session twice.
   * A WebSocket connection's context is made once for many calls and never says so.
   */
  userReadForCall?: boolean;
  /**
   * The page's origin as the browser sent it (`Origin`), for links the server writes for people to
   * open later (a commit's session trailer) when no public URL is configured. The server refused
   * the request already if the origin names another site (server/http/origin.ts).
   */
  requestOrigin?: string;
  /** The request's address, forwarded-for claim and user agent, for the audit log (server/auth/request-origin.ts). */
  requestHeaders?: Headers;
};

export const SHARE_TOKEN_HEADER = "x-tandem-share";

/**
 * Whom what a caller opens follows on the access-change bus: their person, and the login or API
 * token they opened it with, whose expiry ends it (server/auth/credential-expiries.ts).
 */
export function credentialOf(ctx: Context): AccessHolder {
  return { userId: ctx.user?.id, loginSessionId: ctx.loginSessionId, tokenId: ctx.token?.id };
}

// Used for HTTP calls and WebSocket connections.
export async function createContext(
  services: Services,
  headers: Headers,
  connectionParams?: Record<string, string | undefined> | null,
): Promise<Context> {
  // The login session's user row already carries the role (an additional field of better-auth).
  return contextOf(services, headers, await services.logins.user(headers), connectionParams);
}

function contextOf(
  services: Services,
  headers: Headers,
  login: Login | null,
  connectionParams?: Record<string, string | undefined> | null,
): Context {
  const shareToken = connectionParams?.shareToken || headers.get(SHARE_TOKEN_HEADER) || null;
  const currentUser = async () => (await services.logins.fresh(headers))?.user ?? null;
  return {
    user: login?.user ?? null,
    token: login?.token ?? null,
    loginSessionId: login?.loginSessionId ?? null,
    services,
    shareToken,
    clientIp: headers.get(CLIENT_IP_HEADER) ?? "unknown",
    currentUser,
    userReadForCall: true,
    requestOrigin: webOrigin(headers.get("origin")),
    requestHeaders: headers,
  };
}

function webOrigin(value: string | null): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** How long a WebSocket connection trusts the login session it last read, unless an access change concerns its user. */
const CONNECTION_USER_TTL_MS = 1_000;

/**
 * A tRPC WebSocket connection's context: like an HTTP call's, except that its user is read again
 * per call (cached for a second, never past the expiry of the login or token read, and dropped at
 * once when an access change concerns them), so a sign-out, a revoked login session or token, or
 * one reaching its expiry ends the connection's rights. `onClose` registers the cleanup.
 */
export async function createConnectionContext(
  services: Services,
  headers: Headers,
  connectionParams: Record<string, string | undefined> | null | undefined,
  onClose: (cleanup: () => void) => void,
): Promise<Context> {
  const keep = (login: Login | null) => ({
    user: login?.user ?? null,
    until: Math.min(Date.now() + CONNECTION_USER_TTL_MS, login?.lastsUntil ?? Number.POSITIVE_INFINITY),
  });
  const login = await services.logins.user(headers);
  const base = contextOf(services, headers, login, connectionParams);
  let cached: { user: AppUser | null; until: number } | null = keep(login);
  const stop = base.user ? services.accessChanges.subscribe(credentialOf(base), () => (cached = null)) : () => {};
  onClose(stop);
  const currentUser = async () => {
    if (cached && Date.now() < cached.until) return cached.user;
    const read = keep(await services.logins.fresh(headers));
    cached = read;
    return read.user;
  };
  return { ...base, currentUser, userReadForCall: false };
}
