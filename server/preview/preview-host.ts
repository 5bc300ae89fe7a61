// The preview's origin: `<port>-<projectId>.<domain>` (by default `<port>-<projectId>.localhost`
// on the preview port), a host of its own per project and port, never the IDE's host. Browsers
// resolve every `*.localhost` to the loopback address, so this needs no DNS on one machine; a
// deployment sets a preview domain with a wildcard DNS record and certificate
// (docs/deployment.md).

const HOST = /^(\d{1,5})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(.+)$/;

export type PreviewTarget = { port: number; projectId: string };

/** The project and port a preview Host header names under `domain`, or null. */
export function previewTarget(hostHeader: string | undefined, domain: string): PreviewTarget | null {
  const host = (hostHeader ?? "").toLowerCase().replace(/:\d+$/, "");
  const match = HOST.exec(host);
  if (!match || match[3] !== domain.toLowerCase()) return null;
  const port = Number(match[1]);
  if (port < 1 || port > 65535) return null;
  return { port, projectId: match[2]! };
}

/** The preview origin of a project's port: `base` is the preview's own origin with `*` where the host's first label goes. */
export function previewOrigin(base: { protocol: string; domain: string; port: number | null }, target: PreviewTarget) {
  const port = base.port ? `:${base.port}` : "";
  return `${base.protocol}//${target.port}-${target.projectId}.${base.domain}${port}`;
}

/**
 * Whether a request target names a path of Tandem's own however it is written (percent-encoded,
 * with dot segments or doubled slashes): `/__tandem/` is Tandem's, and nothing under it is ever
 * the app's, so an entry link's token written another way never reaches the app.
 */
export function tandemPath(target: string): boolean {
  let path = target.split(/[?#]/, 1)[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not decodable: read as written.
  }
  return /(^|[/\\])\.*__tandem([/\\]|$)/i.test(path);
}
