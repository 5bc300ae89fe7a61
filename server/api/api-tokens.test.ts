import { createTRPCClient, createWSClient, httpLink, wsLink } from "@trpc/client";
import superjson from "superjson";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { startServer, type RunningServer } from "@/server/start-server";
import { createSession } from "@/server/db/repositories/sessions";
import { createTeam } from "@/server/db/repositories/teams";
import { hashToken } from "@/server/db/tokens";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { until } from "@/server/test/until";

// Personal API tokens through a real server, as a script would use them: `Authorization: Bearer`
// on tRPC over HTTP and WebSocket and on the terminal socket. Which procedure each scope reaches is
// in the authorization matrix (authorization.test.ts); this is the wire, revocation and expiry.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let cookie: string;
let projectId: string;
let sessionId: string;
let terminalId: string;
let teamId: string;
let ownerId: string;

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;
const overHttp = (headers: Record<string, string>): Client =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers })] });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const browser = () => overHttp({ cookie, origin: base });

/** The code a call fails with, or "ok". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    const data = (error as { data?: { code?: string } }).data;
    return `${data?.code ?? "?"}: ${(error as Error).message}`;
  }
}

async function newToken(scopes: Array<"read" | "write" | "run" | "admin">, expiresInDays = 30) {
  return browser().apiToken.create.mutate({ name: `script ${scopes.join("+")}`, scopes, expiresInDays });
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const owner = await signUpPerson(env.services, "Olive");
  cookie = owner.cookie;
  const team = await createTeam(env.services.db, { name: "Acme", ownerId: owner.id });
  teamId = team.id;
  ownerId = owner.id;
  projectId = (await browser().project.create.mutate({ name: "Scripts", teamId: team.id })).id;
  sessionId = (
    await createSession(env.services.db, {
      projectId,
      title: "CI",
      authorId: owner.id,
      model: "openai-compatible:none",
    })
  ).id;
  await env.services.agent.log.append(sessionId, "user_message", { text: "hello", authorName: "Olive" }, owner.id);
  terminalId = (await browser().terminal.create.mutate({ projectId, cols: 80, rows: 24 })).id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("API tokens over HTTP", () => {
  it("reads with a read token, is refused writes with the scope named, and stores only the hash", async () => {
    const { token, apiToken } = await newToken(["read"]);
    expect(token).toMatch(/^tandem_[A-Za-z0-9_-]{43}$/);
    expect(apiToken.scopes).toEqual(["read"]);
    const script = overHttp(bearer(token));
    expect((await script.project.list.query()).map((p) => p.id)).toContain(projectId);
    expect(await outcome(script.project.create.mutate({ name: "Nope", teamId: crypto.randomUUID() }))).toBe(
      'FORBIDDEN: This API token does not have the "write" scope.',
    );
    expect(await outcome(script.fs.write.mutate({ projectId, path: "x.txt", content: "x" }))).toMatch(/"write" scope/);
    const row = await env.services.db.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } });
    expect(row.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token.slice("tandem_".length));
    await until(
      async () => !!(await browser().apiToken.list.query()).find((t) => t.id === apiToken.id)?.lastUsedAt,
      "the token's last use recorded",
      5_000,
    );
  });

  it("stops working at the next call once revoked, and never works once expired", async () => {
    const { token, apiToken } = await newToken(["read", "write"]);
    const script = overHttp(bearer(token));
    expect(await outcome(script.project.list.query())).toBe("ok");
    await browser().apiToken.revoke.mutate({ id: apiToken.id });
    expect(await outcome(script.project.list.query())).toBe("UNAUTHORIZED: Sign in to continue.");

    const old = await newToken(["read"]);
    await env.services.db.apiToken.update({
      where: { id: old.apiToken.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect(await outcome(overHttp(bearer(old.token)).project.list.query())).toMatch(/^UNAUTHORIZED/);
  });

  it("cannot mint or list tokens, and a bad Authorization header is never read as the cookie beside it", async () => {
    const { token } = await newToken(["read", "write", "run", "admin"]);
    const script = overHttp(bearer(token));
    expect(await outcome(script.apiToken.create.mutate({ name: "more", scopes: ["admin"], expiresInDays: 1 }))).toBe(
      "FORBIDDEN: API tokens are managed from a signed-in browser only.",
    );
    expect(await outcome(script.apiToken.list.query())).toMatch(/^FORBIDDEN/);
    for (const header of ["Bearer nonsense", `Basic ${token}`, `Bearer ${token}x`, "Bearer tandem_"]) {
      const confused = overHttp({ cookie, authorization: header });
      expect(await outcome(confused.project.list.query()), header).toMatch(/^UNAUTHORIZED/);
    }
  });

  it("refuses a token that asks for nothing and one that never expires", async () => {
    expect(await outcome(browser().apiToken.create.mutate({ name: "x", scopes: [], expiresInDays: 30 }))).toMatch(
      /BAD_REQUEST: .*at least one scope/s,
    );
    expect(
      await outcome(browser().apiToken.create.mutate({ name: "x", scopes: ["read"], expiresInDays: 100_000 })),
    ).toMatch(/^BAD_REQUEST/);
  });
});

describe("API tokens on the sockets", () => {
  function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket }> {
    return new Promise((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.on("open", () => resolve({ status: 101, ws }));
      ws.on("unexpected-response", (_req, res) => resolve({ status: res.statusCode ?? 0 }));
      ws.on("error", () => resolve({ status: 0 }));
    });
  }

  it("opens the terminal read-only with a read token, and lets a write token type", async () => {
    const url = terminalSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, terminalId);
    const reader = await newToken(["read"]);
    const writer = await newToken(["read", "write"]);
    expect((await upgrade(url, { authorization: "Bearer tandem_nope" })).status).toBe(401);
    let seen = "";
    const watch = await upgrade(url, { cookie });
    watch.ws!.on("message", (data, binary) => {
      if (binary) seen += data.toString();
    });
    const asReader = await upgrade(url, bearer(reader.token));
    const asWriter = await upgrade(url, bearer(writer.token));
    expect([asReader.status, asWriter.status]).toEqual([101, 101]);
    const type = (ws: WebSocket, text: string) => ws.send(JSON.stringify({ type: "input", data: text }));
    type(asReader.ws!, "echo reader-$((40+1))\r");
    type(asWriter.ws!, "echo writer-$((40+2))\r");
    await until(() => seen.includes("writer-42"), "the write token's command ran", 10_000);
    expect(seen).not.toContain("reader-41");
    for (const ws of [watch.ws, asReader.ws, asWriter.ws]) ws!.close();
  });

  it("lets a team's write token open and type in a terminal of the team's project, and no other team's", async () => {
    const own = await browser().apiToken.teamCreate.mutate({
      teamId,
      name: "team writer",
      scopes: ["read", "write"],
      expiresInDays: 1,
    });
    const elsewhere = await createTeam(env.services.db, { name: "Elsewhere", ownerId });
    const other = await browser().apiToken.teamCreate.mutate({
      teamId: elsewhere.id,
      name: "other team",
      scopes: ["read", "write"],
      expiresInDays: 1,
    });
    const host = { protocol: "http:", host: new URL(base).host };
    expect((await upgrade(terminalSocketUrl(host, projectId, terminalId), bearer(other.token))).status).toBe(404);
    const terminal = await overHttp(bearer(own.token)).terminal.create.mutate({ projectId, cols: 80, rows: 24 });
    const url = terminalSocketUrl(host, projectId, terminal.id);
    const asTeam = await upgrade(url, bearer(own.token));
    expect(asTeam.status).toBe(101);
    let seen = "";
    asTeam.ws!.on("message", (data, binary) => {
      if (binary) seen += data.toString();
    });
    asTeam.ws!.send(JSON.stringify({ type: "input", data: "echo team-$((40+3))\r" }));
    await until(() => seen.includes("team-43"), "the team token's command ran", 10_000);
    asTeam.ws!.close();
    await browser().apiToken.teamRevoke.mutate({ teamId, id: own.apiToken.id });
    expect((await upgrade(url, bearer(own.token))).status).toBe(401);
  });

  it("streams a session over the tRPC WebSocket with a token, and ends within 2 s of revoking it", async () => {
    const { token, apiToken } = await newToken(["read"]);
    class Socket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: bearer(token) });
      }
    }
    const ws = createWSClient({
      url: `${base.replace("http", "ws")}/api/trpc/ws`,
      WebSocket: Socket as unknown as typeof globalThis.WebSocket,
      retryDelayMs: () => 60_000,
    });
    const trpc = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws, transformer: superjson })] });
    const events: string[] = [];
    let ended: { code: string; at: number } | null = null;
    const subscription = trpc.session.events.subscribe(
      { sessionId, afterSeq: 0 },
      {
        onData: () => events.push("data"),
        onError: (error) => {
          ended = { code: (error.data as { code?: string } | undefined)?.code ?? error.message, at: Date.now() };
        },
      },
    );
    await until(() => events.length > 0, "the session's first event", 5_000);
    const revokedAt = Date.now();
    await browser().apiToken.revoke.mutate({ id: apiToken.id });
    await until(() => ended !== null, "the stream ended", 5_000);
    const end = ended as unknown as { code: string; at: number };
    expect(end.code).toBe("UNAUTHORIZED");
    expect(end.at - revokedAt).toBeLessThan(2_000);
    subscription.unsubscribe();
    ws.close();
  });
});
