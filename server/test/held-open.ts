import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import superjson from "superjson";
import WebSocket from "ws";
import { languageSocketUrl } from "@/lib/language-protocol";
import { liveDocSocketUrl } from "@/lib/live-doc-protocol";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import type { AppRouter } from "@/server/api/root";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createSession } from "@/server/db/repositories/sessions";
import { setSetting } from "@/server/db/repositories/settings";
import { createTeam } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { startServer } from "@/server/start-server";
import { createTestServices, signUpPerson } from "@/server/test/services";

// What a credential (a login's cookie, an API token) may hold open on a real server, for the tests
// of what ends it (login-expiry.test.ts, token-expiry.test.ts): a team's project with a session's
// events, a shared terminal, a language server and a live document, and clients that open each
// with the credential's headers.

const callerFor = createCallerFactory(appRouter);

/** The real server over test services, with Olive's team and project "name" in it. */
export async function startHeldProject(name: string) {
  const env = await createTestServices();
  const server = await startServer(
    { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } },
    { dir: process.cwd(), pages: false },
  );
  const olive = await signUpPerson(env.services, "Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const db = env.services.db;
  const teamId = (await createTeam(db, { name: "Acme", ownerId: olive.id })).id;
  const owner = callerFor(env.context((await findUser(db, olive.id))!));
  const projectId = (await owner.project.create({ name, teamId })).id;
  await (await env.services.files.open(projectId)).write("notes.txt", "shared notes\n");
  const sessionId = (
    await createSession(db, { projectId, title: name, authorId: olive.id, model: "openai-compatible:none" })
  ).id;
  await env.services.agent.log.append(sessionId, "user_message", { text: "hello", authorName: "Olive" }, olive.id);
  const terminalId = (await owner.terminal.create({ projectId, cols: 80, rows: 24 })).id;
  await owner.terminal.shareInput({ projectId, terminalId, shared: true });
  const host = { protocol: "http:", host: new URL(server.url).host };
  const urls = {
    terminal: terminalSocketUrl(host, projectId, terminalId),
    language: languageSocketUrl(host, projectId, "typescript"),
    liveDoc: liveDocSocketUrl(host, projectId, "notes.txt"),
  };
  const close = async () => {
    await server.close();
    await env.dispose();
  };
  return { env, server, base: server.url, teamId, owner, projectId, sessionId, urls, close };
}

export type HeldProject = Awaited<ReturnType<typeof startHeldProject>>;

/** Clients of `base` that send `headers` (a cookie and origin, or a bearer token) on every connection. */
export function clientsWith(base: string, headers: Record<string, string>) {
  function trpc() {
    class Socket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    }
    const ws = createWSClient({
      url: `${base.replace("http", "ws")}/api/trpc/ws`,
      WebSocket: Socket as unknown as typeof globalThis.WebSocket,
      retryDelayMs: () => 60_000,
    });
    return {
      trpc: createTRPCClient<AppRouter>({ links: [wsLink({ client: ws, transformer: superjson })] }),
      close: () => ws.close(),
    };
  }

  /** The session's event stream: how many events came, and the error it ended with, and when. */
  function watchEvents(client: ReturnType<typeof trpc>, sessionId: string) {
    const state = { data: 0, end: null as { code: string; at: number } | null };
    const subscription = client.trpc.session.events.subscribe(
      { sessionId, afterSeq: 0 },
      {
        onData: () => void state.data++,
        onError: (error) =>
          (state.end = { code: (error.data as { code?: string } | undefined)?.code ?? error.message, at: Date.now() }),
      },
    );
    return { state, unsubscribe: () => subscription.unsubscribe() };
  }

  /** A raw WebSocket: what it received, and its close code and time. */
  async function open(url: string) {
    const ws = new WebSocket(url, { headers });
    // Listened to before it opens: the server's first message may come with the upgrade's answer.
    const seen = { output: "", closed: null as { code: number; at: number } | null };
    ws.on("message", (data) => (seen.output += data.toString()));
    ws.on("close", (code) => (seen.closed = { code, at: Date.now() }));
    await new Promise<void>((resolve, reject) => {
      ws.on("open", () => resolve());
      ws.on("unexpected-response", (_req, res) => reject(new Error(`upgrade of ${url} refused: ${res.statusCode}`)));
    });
    return { ws, seen };
  }

  /** The status an upgrade gets (101: opened, and closed again at once). */
  function upgradeStatus(url: string): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.on("open", () => {
        ws.close();
        resolve(101);
      });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => resolve(0));
    });
  }

  return { trpc, watchEvents, open, upgradeStatus };
}
