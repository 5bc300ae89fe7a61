import { createTRPCClient, createWSClient, httpLink, splitLink, wsLink } from "@trpc/client";
import superjson from "superjson";
import WebSocket from "ws";
import type { AppRouter } from "@/server/api/root";

// How tests and benchmarks talk to one instance of a cluster (or to its balancer) the way a
// browser does: a login cookie from better-auth, tRPC queries and mutations over HTTP, and
// subscriptions over the tRPC WebSocket.

export async function signUp(baseUrl: string, email: string, name = email.split("@")[0]!): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password: "correct horse battery", name }),
  });
  if (!response.ok) throw new Error(`sign-up of ${email} failed: ${response.status} ${await response.text()}`);
  return cookieOf(response);
}

/** A new login of the person; `rememberMe: false` makes one that using it never renews. */
export async function signIn(baseUrl: string, email: string, options: { rememberMe?: boolean } = {}): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password: "correct horse battery", ...options }),
  });
  if (!response.ok) throw new Error(`sign-in of ${email} failed: ${response.status} ${await response.text()}`);
  return cookieOf(response);
}

export async function signOut(baseUrl: string, cookie: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/auth/sign-out`, {
    method: "POST",
    headers: { cookie, origin: baseUrl, "content-type": "application/json" },
    body: "{}",
  });
  if (!response.ok) throw new Error(`sign-out failed: ${response.status} ${await response.text()}`);
}

function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

export type ClusterClient = ReturnType<typeof connect>;

/**
 * A browser-like client of `baseUrl`: `cookie` signs it in, or `token` (an API token) as a script
 * does; `shareToken` makes it a share-link guest.
 */
export function connect(baseUrl: string, options: { cookie?: string; token?: string; shareToken?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  class CookieWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const ws = createWSClient({
    url: `${baseUrl.replace(/^http/, "ws")}/api/trpc/ws`,
    WebSocket: CookieWebSocket as unknown as typeof globalThis.WebSocket,
    connectionParams: options.shareToken ? { shareToken: options.shareToken } : undefined,
  });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: wsLink({ client: ws, transformer: superjson }),
        false: httpLink({
          url: `${baseUrl}/api/trpc`,
          transformer: superjson,
          headers: () => ({ ...headers, ...(options.shareToken ? { "x-tandem-share": options.shareToken } : {}) }),
        }),
      }),
    ],
  });
  /** The same procedures, every call over the WebSocket (what an open tab's socket can still do). */
  const overSocket = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws, transformer: superjson })] });
  return { trpc, overSocket, close: () => ws.close() };
}
