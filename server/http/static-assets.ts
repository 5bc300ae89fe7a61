import type http from "node:http";
import path from "node:path";
import sirv from "sirv";

export const STATIC_PREFIX = "/_next/static/";

/**
 * The build's hashed assets (/_next/static/...), sent from the files with their precompressed .br
 * or .gz twin (scripts/compress-static.mjs) and cached by browsers for a year. A file that is not
 * there goes to `fallback` (Next), with the request's URL as it came.
 */
export function createStaticAssets(appDir: string) {
  const serve = sirv(path.join(appDir, ".next", "static"), { maxAge: 31_536_000, immutable: true, brotli: true, gzip: true, etag: true, extensions: [] });
  return (req: http.IncomingMessage, res: http.ServerResponse, fallback: () => void) => {
    const original = req.url ?? "/";
    req.url = original.slice(STATIC_PREFIX.length - 1);
    serve(req, res, () => {
      req.url = original;
      fallback();
    });
  };
}
