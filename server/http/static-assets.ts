import type http from "node:http";
import path from "node:path";
import sirv from "sirv";

export const STATIC_PREFIX = "/_next/static/";

/**
 * The build's hashed assets (/_next/static/...), sent from the files with their precompressed .br
 * or .gz twin (scripts/prepare-static.mjs) and cached by browsers for a year. A file that is not
 * there goes to `fallback` (Next), with the request's URL as it came.
 */
export function createStaticAssets(appDir: string) {
  const serve = sirv(path.join(appDir, ".next", "static"), {
    maxAge: 31_536_000,
    immutable: true,
    brotli: true,
    gzip: true,
    etag: true,
    extensions: [],
  });
  return (req: http.IncomingMessage, res: http.ServerResponse, fallback: () => void) => {
    const original = req.url ?? "/";
    req.url = original.slice(STATIC_PREFIX.length - 1);
    serve(req, res, () => {
      req.url = original;
      fallback();
    });
  };
}

/** How long browsers keep public/'s files: they have no hash in their names, so not for long. */
export const PUBLIC_MAX_AGE = 86_400;

/**
 * The files of public/ (favicon, app icons, web app manifest, robots.txt) at the site's root,
 * cached for a day and revalidated by ETag after that (Next's own serving says max-age=0, so every
 * page load would ask again). Anything else goes to `fallback`.
 */
export function createPublicFiles(appDir: string, options: { dev?: boolean } = {}) {
  const serve = sirv(path.join(appDir, "public"), {
    dev: options.dev,
    maxAge: PUBLIC_MAX_AGE,
    etag: true,
    extensions: [],
    dotfiles: false,
    setHeaders: (res, pathname) => {
      res.setHeader("X-Content-Type-Options", "nosniff");
      if (pathname.endsWith(".webmanifest")) res.setHeader("Content-Type", "application/manifest+json; charset=utf-8");
    },
  });
  return (req: http.IncomingMessage, res: http.ServerResponse, fallback: () => void) => {
    if (req.method !== "GET" && req.method !== "HEAD") return fallback();
    serve(req, res, fallback);
  };
}
