import type { IncomingMessage } from "node:http";

// Same-origin check for state-changing requests and WebSocket upgrades: a browser always sends
// Origin on those, and it must name this server (or the configured public URL). Requests with no
// Origin come from scripts, not browsers, and carry no ambient cookie risk from other sites.
export function originAllowed(req: IncomingMessage, publicUrl?: string): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  if (publicUrl && origin === new URL(publicUrl).origin) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return parsed.host === req.headers.host;
}
