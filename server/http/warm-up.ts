// The first request to each page route and the first tRPC call after a start load their code
// lazily: Next.js requires a route's server chunks on its first render and the database client
// prepares its first queries. Measured on a fresh server, the first sign-in page took ~0.7 s, the
// first IDE page ~0.45 s and the first tRPC call ~0.35 s, against tens of ms afterwards. The server
// pays that once at start-up, as an anonymous visitor would, before it reports itself ready, so the
// first person to open the IDE does not. The reads of a signed-in first screen are warmed in
// process (server/services/first-screen.ts), and the garbage of all this is collected last.
import v8 from "node:v8";
import vm from "node:vm";

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

/**
 * Start-up leaves ~100 MB of garbage behind (the modules loaded, the warm-up's renders and reads),
 * and V8 collected it during the first signed-in page load: a 120-150 ms pause inside its
 * first-screen request, measured with a CPU profile of a fresh server. It is collected here, before
 * the server reports itself ready. Node offers no collection without --expose-gc; turning the flag
 * on now and taking `gc` from a new context is how jest's leak detector does it too, and works
 * however the server was launched.
 */
export function collectStartupGarbage(): void {
  v8.setFlagsFromString("--expose-gc");
  (vm.runInNewContext("gc") as () => void)();
}
