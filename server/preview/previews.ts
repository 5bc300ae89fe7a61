import { createPreviewAccess, type PreviewAccess } from "./preview-access";
import { previewOrigin } from "./preview-host";
import { PREVIEW_COOKIE } from "./preview-headers";
import { PREVIEW_ENTER_PATH, PREVIEW_LINK_PATH } from "./preview-server";

// Previews as the rest of the server sees them: who may enter (preview-access.ts) and the address
// of a project's port (preview-host.ts), known once the preview server listens (server/http/preview-listener.ts).

export type Previews = {
  access: PreviewAccess;
  /** The domain of previews' hosts: `localhost` unless an admin set TANDEM_PREVIEW_DOMAIN. */
  domain: string;
  /** Served over https (the public URL is https), so its session cookie is Secure. */
  secure: boolean;
  /** Called when the preview server listens, with its port. */
  listening(port: number): void;
  /** Every preview's origin as a CSP source (`http://*.localhost:4100`); null until the preview server listens. */
  frameSource(): string | null;
  /**
   * The one-time link that opens the project's port (at `path`) for this person, in a preview
   * session that lasts as long as their login session `loginSessionId` (the one the IDE's request
   * came with); null until the preview server listens.
   */
  entryUrl(projectId: string, port: number, userId: string, loginSessionId: string, path?: string): string | null;
  /** The address of a public link of the project's port; null until the preview server listens. */
  linkUrl(projectId: string, port: number, token: string): string | null;
  /**
   * A preview session for this person on the project's port, made at once, for the browser of the
   * agent session `agentSessionId` (server/tools/browser): the preview's origin and the session
   * cookie to put in that browser alone. It lasts as long as the agent session, not a login; the
   * preview server checks membership on each request as for anyone. Null until the preview server
   * listens.
   */
  sessionFor(
    projectId: string,
    port: number,
    userId: string,
    agentSessionId: string,
  ): { origin: string; cookie: { name: string; value: string; secure: boolean } } | null;
  /** The port the preview server listens on, or null before it does. */
  port(): number | null;
};

export function createPreviews(
  options: { domain: string | undefined; publicUrl: string | undefined },
  secret: string,
): Previews {
  const access = createPreviewAccess(secret);
  const secure = options.publicUrl?.startsWith("https:") ?? false;
  const domain = options.domain ?? "localhost";
  let listeningOn: number | null = null;
  // Behind a configured domain the proxy in front serves the standard port; on localhost, the preview port.
  const base = () =>
    listeningOn === null
      ? null
      : { protocol: secure ? "https:" : "http:", domain, port: options.domain ? null : listeningOn };
  const originOf = (projectId: string, port: number) => {
    const at = base();
    return at && previewOrigin(at, { projectId, port });
  };
  return {
    access,
    domain,
    secure,
    listening(port) {
      listeningOn = port;
    },
    frameSource() {
      const at = base();
      return at && `${at.protocol}//*.${at.domain}${at.port ? `:${at.port}` : ""}`;
    },
    entryUrl(projectId, port, userId, loginSessionId, path = "/") {
      const origin = originOf(projectId, port);
      if (origin === null) return null;
      const token = access.entryToken(projectId, port, userId, { loginSessionId }, path);
      return `${origin}${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(token)}`;
    },
    linkUrl(projectId, port, token) {
      const origin = originOf(projectId, port);
      return origin === null ? null : `${origin}${PREVIEW_LINK_PATH}?t=${encodeURIComponent(token)}`;
    },
    sessionFor(projectId, port, userId, agentSessionId) {
      const origin = originOf(projectId, port);
      const redeemed =
        origin === null
          ? null
          : access.redeem(access.entryToken(projectId, port, userId, { agentSessionId }), projectId, port);
      if (origin === null || !redeemed) return null;
      return { origin, cookie: { name: PREVIEW_COOKIE, value: redeemed.cookie, secure } };
    },
    port: () => listeningOn,
  };
}
