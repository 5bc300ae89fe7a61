import { createPreviewAccess, type PreviewAccess } from "./preview-access";
import { previewOrigin } from "./preview-host";
import { PREVIEW_ENTER_PATH } from "./preview-server";

// Previews as the rest of the server sees them: who may enter (preview-access.ts) and the address
// of a project's port (preview-host.ts), known once the preview server listens (start-server.ts).

export type Previews = {
  access: PreviewAccess;
  /** The domain of previews' hosts: `localhost` unless an admin set TANDEM_PREVIEW_DOMAIN. */
  domain: string;
  /** Served over https (the public URL is https), so its session cookie is Secure. */
  secure: boolean;
  /** Called when the preview server listens, with its port. */
  listening(port: number): void;
  /** The one-time link that opens the project's port for this person; null until the preview server listens. */
  entryUrl(projectId: string, port: number, userId: string): string | null;
};

export function createPreviews(
  options: { domain: string | undefined; publicUrl: string | undefined },
  secret: string,
): Previews {
  const access = createPreviewAccess(secret);
  const secure = options.publicUrl?.startsWith("https:") ?? false;
  const domain = options.domain ?? "localhost";
  let listeningOn: number | null = null;
  return {
    access,
    domain,
    secure,
    listening(port) {
      listeningOn = port;
    },
    entryUrl(projectId, port, userId) {
      if (listeningOn === null) return null;
      // Behind a configured domain the proxy in front serves the standard port; on localhost, the preview port.
      const base = { protocol: secure ? "https:" : "http:", domain, port: options.domain ? null : listeningOn };
      const token = access.entryToken(projectId, port, userId);
      return `${previewOrigin(base, { projectId, port })}${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(token)}`;
    },
  };
}
