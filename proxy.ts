import { NextResponse, type NextRequest } from "next/server";
import { PREVIEW_FRAMES_HEADER } from "@/lib/preview-frame";

// The Content-Security-Policy of every page. Scripts run only from this origin with this
// response's nonce (Next puts it on its own scripts; 'strict-dynamic' lets those load the
// chunks they import); no inline script without it. Images only from this origin, data: and
// blob:. Monaco's workers come from this origin (blob: for the ones it builds). Styles allow
// inline: Monaco, xterm and the panel layout set them at run time (a nonce would disable that).
// Pages are rendered per request (app/layout.tsx reads the headers), so each gets a fresh nonce.
// Frames: this origin and the previews' own origins (the Preview panel), which the server names.

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const dev = process.env.NODE_ENV === "development";
  const previews = request.headers.get(PREVIEW_FRAMES_HEADER);
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    `frame-src 'self'${previews && /^https?:\/\/\*\.[a-z0-9.-]+(:\d+)?$/.test(previews) ? ` ${previews}` : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  response.headers.set("X-Content-Type-Options", "nosniff");
  response.headers.set("Referrer-Policy", "no-referrer");
  return response;
}

export const config = {
  matcher: [
    {
      source: "/((?!api|_next/static|_next/image|icon.svg|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
