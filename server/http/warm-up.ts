// The first request to each page route and the first tRPC call after a start load their code
// lazily: Next.js requires a route's server chunks on its first render and the database client
// prepares its first queries. Measured on a fresh server, the first sign-in page took ~0.7 s, the
// first IDE page ~0.45 s and the first tRPC call ~0.35 s, against tens of ms afterwards. The server
// pays that once at start-up, as an anonymous visitor would, before it reports itself ready, so the
// first person to open the IDE does not.

/** Pages a person opens first: the sign-in page, the project list and the IDE (any project id renders its shell). */
const PAGES = ["/sign-in", "/", "/p/00000000-0000-0000-0000-000000000000"];
/** A public query that reads the database (the sign-in page and the IDE ask it first). */
const API = '/api/trpc/account.status?batch=1&input={"0":{"json":null}}';
/** A request still unanswered by then is abandoned: warming up never holds a start-up for long. */
const REQUEST_TIMEOUT_MS = 15_000;

export async function warmUp(baseUrl: string): Promise<void> {
  // One at a time: on a small machine, parallel first renders only compete for the same cores.
  for (const path of [API, ...PAGES]) {
    await fetch(new URL(path, baseUrl), { redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined); // a page that fails to warm is rendered on its first real visit instead
  }
}
