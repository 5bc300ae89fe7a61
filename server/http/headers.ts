import type http from "node:http";

/** A Node request's headers as fetch's Headers (better-auth and the tRPC context read those). */
export const headersOf = (req: http.IncomingMessage) => {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  return headers;
};
