import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { setSetting } from "@/server/db/repositories/settings";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import WebSocket from "ws";
import { insertEvents } from "@/server/db/repositories/session-events";
import { addMember } from "@/server/db/repositories/teams";
import { workspaceLeaseOf } from "@/server/db/repositories/workspace-leases";
import { FORWARDED_HEADER, forwardingHeader, forwardingKey } from "@/server/cluster/workspace-forwarding";
import { createHmac } from "node:crypto";
import { connect, signIn, signOut, signUp } from "@/server/test/cluster-client";
import { until } from "@/server/test/until";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { languageSocketUrl } from "@/lib/language-protocol";
import { liveDocSocketUrl } from "@/lib/live-doc-protocol";
import { LiveDocConnection, type SocketLike } from "@/lib/live-doc-connection";
import { createInstance, instanceEnv, startCluster, type Cluster, type ClusterInstance } from "@/server/test/cluster";
import { freePort } from "@/scripts/free-port.mjs";
import { startLoadBalancer, type LoadBalancer } from "@/server/test/load-balancer";
import type { SessionStreamItem } from "@/lib/session-events";
import { jsonRpcCall } from "@/server/test/json-rpc-socket";

// Three real Tandem instances on one Postgres, behind a load balancer. What one instance does to
// someone's access reaches their connections held on another within 2 s, as an attacker holding
// connections on another instance than the admin's would test it.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let model: ModelServer;
let cluster: Cluster;
/** The first person (an admin), who owns what the tests share. Sign-ups are few: better-auth allows 5 a minute per address, on every instance together. */
let ann: { cookie: string; id: string };

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  model = await startModelServer({
    scenario: { replies: [{ match: "Tell a story", text: "Once upon a time on another instance", delayMs: 5 }] },
  });
  cluster = await startCluster({
    databaseUrl: database.url,
    instances: 3,
    env: {
      TANDEM_CLUSTER: "1",
      TANDEM_MODEL: "openai-compatible:scripted",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url,
      TANDEM_OPENAI_COMPATIBLE_API_KEY: "test",
    },
  });
  ann = await person(cluster.instances[0]!.url, "ann@example.com");
  await setSetting(database.db, "signupMode", "open");
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await model?.close();
  await database?.drop();
});

describe("a cluster of instances", () => {
  it("shares sign-ins: a cookie from one instance works on every instance and through the balancer", async () => {
    for (const url of [...cluster.instances.slice(1).map((instance) => instance.url), cluster.url]) {
      const client = connect(url, { cookie: ann.cookie });
      expect((await client.trpc.account.me.query())?.email).toBe("ann@example.com");
      client.close();
    }
  });

  it("sends a session's events produced on one instance to a viewer on another", async () => {
    const [a, b] = cluster.instances;
    const onA = connect(a!.url, { cookie: ann.cookie });
    const onB = connect(b!.url, { cookie: ann.cookie });
    const project = await onA.trpc.project.create.mutate({ name: "Fan-out" });
    const session = await onA.trpc.session.create.mutate({ projectId: project.id });
    const seen: SessionStreamItem[] = [];
    const sub = onB.trpc.session.events.subscribe(
      { sessionId: session.id, afterSeq: 0 },
      { onData: (tracked) => void seen.push(tracked.data) },
    );
    await onA.trpc.session.send.mutate({ sessionId: session.id, text: "Tell a story" });
    await until(
      () => seen.some((item) => item.kind === "event" && item.event.type === "turn_finished"),
      "the turn's end on B",
      20_000,
    );
    expect(seen.some((item) => item.kind === "delta")).toBe(true);
    const seqs = seen.flatMap((item) =>
      item.kind === "events" ? item.events.map((e) => e.seq) : item.kind === "event" ? [item.event.seq] : [],
    );
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    sub.unsubscribe();
    onA.close();
    onB.close();
  });
});

/** A person signed up through `url`: their login cookie and user id. */
async function person(url: string, email: string) {
  const cookie = await signUp(url, email);
  const client = connect(url, { cookie });
  const me = await client.trpc.account.me.query();
  client.close();
  return { cookie, id: me!.id };
}

/** A live subscription as seen from outside: how much data came, and the error it ended with, and when. */
function watch(
  start: (handlers: { onData: () => void; onError: (error: { data?: unknown; message: string }) => void }) => {
    unsubscribe(): void;
  },
) {
  const state = { data: 0, end: null as { code: string; at: number } | null };
  const subscription = start({
    onData: () => void state.data++,
    onError: (error) =>
      (state.end = { code: (error.data as { code?: string } | undefined)?.code ?? error.message, at: Date.now() }),
  });
  return { state, unsubscribe: () => subscription.unsubscribe() };
}

/** `who`: a login's cookie, or an API token. */
async function openTerminal(baseUrl: string, who: string | { token: string }, projectId: string, terminalId: string) {
  const url = terminalSocketUrl({ protocol: "http:", host: new URL(baseUrl).host }, projectId, terminalId);
  const headers = typeof who === "string" ? { cookie: who, origin: baseUrl } : { authorization: `Bearer ${who.token}` };
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on("open", () => resolve(socket));
    socket.on("unexpected-response", (_req, res) => reject(new Error(`terminal upgrade refused: ${res.statusCode}`)));
  });
  const seen = { output: "", closed: null as { code: number; at: number } | null };
  ws.on("message", (data, binary) => {
    if (binary) seen.output += data.toString();
  });
  ws.on("close", (code) => (seen.closed = { code, at: Date.now() }));
  return {
    ws,
    seen,
    type: (text: string) => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: "input", data: text })),
  };
}

async function openLanguage(baseUrl: string, cookie: string, projectId: string, server: string) {
  return new Promise<WebSocket>((resolve, reject) => {
    const socket = new WebSocket(
      languageSocketUrl({ protocol: "http:", host: new URL(baseUrl).host }, projectId, server),
      { headers: { cookie, origin: baseUrl } },
    );
    socket.on("open", () => resolve(socket));
    socket.on("unexpected-response", (_req, res) => reject(new Error(`language upgrade refused: ${res.statusCode}`)));
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("access taken away on one instance reaches connections on another", () => {
  let owner: ReturnType<typeof connect>;
  let ownerOnB: ReturnType<typeof connect>;
  let teamId: string;
  let projectId: string;
  let sessionId: string;
  let terminalId: string;
  let workspace: string;
  /** The team's people, signed up once; each test gives its person the membership it needs. */
  let people: Record<"rita" | "dana" | "sam", { cookie: string; id: string }>;

  beforeAll(async () => {
    const [a, b] = cluster.instances;
    owner = connect(a!.url, { cookie: ann.cookie });
    ownerOnB = connect(b!.url, { cookie: ann.cookie });
    teamId = (await owner.trpc.team.create.mutate({ name: "Acme" })).id;
    projectId = (await owner.trpc.project.create.mutate({ name: "Live", teamId })).id;
    sessionId = (await owner.trpc.session.create.mutate({ projectId })).id;
    await insertEvents(database.db, [
      {
        sessionId,
        seq: 1,
        type: "user_message",
        payload: { text: "hello", authorName: "Ann" },
        authorId: ann.id,
        createdAt: new Date(),
      },
    ]);
    // The terminal runs on B, where the people below hold their connections.
    terminalId = (await ownerOnB.trpc.terminal.create.mutate({ projectId, cols: 80, rows: 24 })).id;
    await ownerOnB.trpc.terminal.shareInput.mutate({ projectId, terminalId, shared: true });
    workspace = path.join(cluster.dataDir, "workspaces", projectId);
    const onB = cluster.instances[1]!.url;
    people = {
      rita: await person(onB, "rita@example.com"),
      dana: await person(onB, "dana@example.com"),
      sam: await person(onB, "sam@example.com"),
    };
  });

  afterAll(() => {
    owner?.close();
    ownerOnB?.close();
  });

  const member = async (name: keyof typeof people, role: "member" | "viewer" = "member") => {
    await addMember(database.db, teamId, people[name].id, role);
    return people[name];
  };
  const exists = (name: string) =>
    fs.access(path.join(workspace, name)).then(
      () => true,
      () => false,
    );

  it("shows on A who watches on B, and who types through B", async () => {
    const b = cluster.instances[1]!;
    const link = await owner.trpc.share.create.mutate({ sessionId, scope: "view", label: "For Pia" });
    let latest: Array<{ name: string; guest: boolean; typing: boolean }> = [];
    const watching = owner.trpc.session.presence.subscribe(
      { sessionId },
      { onData: (entries) => void (latest = entries) },
    );
    await until(() => latest.some((entry) => entry.name === "ann"), "Ann watching on A");
    const guest = connect(b.url, { shareToken: link.token });
    const guestWatching = guest.trpc.session.presence.subscribe({ sessionId }, { onData: () => {} });
    await until(() => latest.some((entry) => entry.guest), "the guest on B, seen on A", 5_000);
    await ownerOnB.trpc.session.typing.mutate({ sessionId, typing: true });
    await until(
      () => latest.some((entry) => entry.name === "ann" && entry.typing),
      "Ann typing through B, seen on A",
      5_000,
    );
    guestWatching.unsubscribe();
    await until(() => !latest.some((entry) => entry.guest), "the guest gone", 5_000);
    watching.unsubscribe();
    guest.close();
    await owner.trpc.share.revoke.mutate({ sessionId, linkId: link.id });
  });

  it("removing a member on A cuts their event stream, file-change stream and terminal on B within 2 s; what they type after does not run", async () => {
    const b = cluster.instances[1]!;
    const rita = await member("rita");
    const client = connect(b.url, { cookie: rita.cookie });
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    const changes = watch((handlers) => client.trpc.fs.changes.subscribe({ projectId }, handlers));
    const terminal = await openTerminal(b.url, rita.cookie, projectId, terminalId);
    await until(() => events.state.data > 0, "the event backlog on B");
    await pause(300);
    await owner.trpc.fs.write.mutate({ projectId, path: "before.txt", content: "x", createParents: false });
    // The bus's stream opens by saying to read everything (REREAD_ALL); then the write.
    await until(() => changes.state.data > 1, "a file change on B");
    terminal.type("echo rita-$((40+2))\r");
    await until(() => terminal.seen.output.includes("rita-42"), "the terminal's echo");

    const removedAt = Date.now();
    await owner.trpc.team.removeMember.mutate({ teamId, userId: rita.id });
    await until(
      () => !!events.state.end && !!changes.state.end && !!terminal.seen.closed,
      "every connection on B cut",
      2_000,
    );
    terminal.type("echo leaked > leaked.txt\r");
    expect(events.state.end!.code).toBe("NOT_FOUND");
    expect(changes.state.end!.code).toBe("NOT_FOUND");
    expect(terminal.seen.closed!.code).toBe(4403);
    for (const end of [events.state.end!.at, changes.state.end!.at, terminal.seen.closed!.at])
      expect(end - removedAt).toBeLessThan(2_000);
    await pause(500);
    expect(await exists("leaked.txt")).toBe(false);
    client.close();
  });

  it("a member lowered to viewer on A cannot type into the terminal they hold on B, and keeps watching", async () => {
    const b = cluster.instances[1]!;
    const dana = await member("dana");
    const client = connect(b.url, { cookie: dana.cookie });
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    const terminal = await openTerminal(b.url, dana.cookie, projectId, terminalId);
    terminal.type("echo dana-$((40+3))\r");
    await until(() => terminal.seen.output.includes("dana-43"), "the terminal's echo");

    await owner.trpc.team.setRole.mutate({ teamId, userId: dana.id, role: "viewer" });
    await pause(1_000);
    terminal.type("echo typed > typed-by-viewer.txt\r");
    await pause(1_000);
    expect(await exists("typed-by-viewer.txt")).toBe(false);
    expect(terminal.seen.closed).toBeNull();
    expect(events.state.end).toBeNull();
    terminal.ws.close();
    client.close();
  });

  it("a download under way on B is cut when the reader is removed on A, and the next one is refused", async () => {
    const b = cluster.instances[1]!;
    // A viewer may still read: downloading is reading.
    const dana = await member("dana", "viewer");
    await fs.writeFile(path.join(workspace, "big.bin"), Buffer.alloc(64 * 1024 * 1024, 7));
    const url = `${b.url}/api/projects/${projectId}/download?path=big.bin`;
    const state = { status: 0, received: 0, complete: false, closed: false };
    let response!: http.IncomingMessage;
    await new Promise<void>((resolve, reject) => {
      const request = http.get(url, { headers: { cookie: dana.cookie } }, (res) => {
        response = res;
        state.status = res.statusCode ?? 0;
        res.once("data", () => {
          res.pause(); // a slow reader: most of the file is still to come
          resolve();
        });
        res.on("data", (chunk: Buffer) => void (state.received += chunk.length));
        res.on("close", () => {
          state.complete = res.complete;
          state.closed = true;
        });
        res.on("error", () => {});
      });
      request.on("error", reject);
    });
    expect(state.status).toBe(200);

    await owner.trpc.team.removeMember.mutate({ teamId, userId: dana.id });
    // Within 2 s the server has cut the transfer: reading on now gets only what was already sent.
    await pause(2_000);
    response.resume();
    await until(() => state.closed, "the download's end");
    expect(state.complete).toBe(false);
    expect(state.received).toBeLessThan(64 * 1024 * 1024);
    expect((await fetch(url, { headers: { cookie: dana.cookie } })).status).toBe(404);
  });

  it("signing out on A ends the rights of the tRPC WebSocket held on B", async () => {
    const [a, b] = cluster.instances;
    const sam = await member("sam");
    const client = connect(b!.url, { cookie: sam.cookie });
    expect((await client.overSocket.account.me.query())?.id).toBe(sam.id);
    // Over HTTP too: B now keeps Sam's login for a second (server/auth/login-cache.ts).
    expect((await client.trpc.account.me.query())?.id).toBe(sam.id);
    const events = watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    await until(() => events.state.data > 0, "the event backlog on B");

    const signedOutAt = Date.now();
    await signOut(a!.url, sam.cookie);
    await until(() => !!events.state.end, "the stream on B ended", 2_000);
    expect(events.state.end!.code).toBe("UNAUTHORIZED");
    expect(events.state.end!.at - signedOutAt).toBeLessThan(2_000);
    await expect(client.overSocket.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    await expect(client.overSocket.team.create.mutate({ name: "After sign-out" })).rejects.toMatchObject({
      data: { code: "UNAUTHORIZED" },
    });
    await expect(client.trpc.team.create.mutate({ name: "After sign-out, over HTTP" })).rejects.toMatchObject({
      data: { code: "UNAUTHORIZED" },
    });
    client.close();
  });

  it("an upload under way on B is cut when the writer is removed on A, and leaves no file", async () => {
    const b = cluster.instances[1]!;
    // A login of his own (the sign-out test may have ended the first): a member, so he may write.
    const samId = (await member("sam")).id;
    const sam = await signIn(b.url, "sam@example.com");
    const boundary = "----tandem-cluster-test";
    const request = http.request(`${b.url}/api/projects/${projectId}/upload?dir=&onExists=replace`, {
      method: "POST",
      headers: { cookie: sam, origin: b.url, "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    const state = { endedAt: 0, status: 0 };
    request.on("response", (response) => {
      state.status = response.statusCode ?? 0;
      response.resume();
      response.on("close", () => (state.endedAt ||= Date.now()));
    });
    request.on("error", () => (state.endedAt ||= Date.now()));
    request.on("close", () => (state.endedAt ||= Date.now()));
    request.write(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    );
    // A slow sender: 64 kB every 50 ms, for as long as the server takes it.
    const chunk = Buffer.alloc(64 * 1024, 1);
    const sending = setInterval(() => !request.destroyed && request.write(chunk), 50);
    try {
      await pause(500);
      expect(state.endedAt).toBe(0);
      const removedAt = Date.now();
      await owner.trpc.team.removeMember.mutate({ teamId, userId: samId });
      await until(() => state.endedAt > 0, "the upload cut", 2_000);
      expect(state.endedAt - removedAt).toBeLessThan(2_000);
      expect(state.status).not.toBe(200);
    } finally {
      clearInterval(sending);
      request.destroy();
    }
    await pause(300);
    expect(await exists("slow.bin")).toBe(false);
  });

  it("a login that reaches its expiry ends its connections on every instance at that time, whichever holds them", async () => {
    const [, b, c] = cluster.instances;
    const samId = (await member("sam")).id;
    // A login of his own that using it never renews, ending five seconds from now: nothing
    // publishes an access change when it does.
    const cookie = await signIn(b!.url, "sam@example.com", { rememberMe: false });
    const login = await database.db.loginSession.findFirstOrThrow({
      where: { userId: samId },
      orderBy: { createdAt: "desc" },
    });
    const expiresAt = Date.now() + 5_000;
    await database.db.loginSession.update({ where: { id: login.id }, data: { expiresAt: new Date(expiresAt) } });
    const onB = connect(b!.url, { cookie });
    const onC = connect(c!.url, { cookie });
    const eventsOnB = watch((handlers) => onB.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    const eventsOnC = watch((handlers) => onC.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    // Opened on C, served by B, which holds the project's terminals.
    const terminal = await openTerminal(c!.url, cookie, projectId, terminalId);
    await until(() => eventsOnB.state.data > 0 && eventsOnC.state.data > 0, "the backlogs on B and C");
    terminal.type("echo sam-$((40+5))\r");
    await until(() => terminal.seen.output.includes("sam-45"), "the terminal's echo");
    expect(Date.now()).toBeLessThan(expiresAt);

    await until(
      () => !!eventsOnB.state.end && !!eventsOnC.state.end && !!terminal.seen.closed,
      "every connection under the login ended",
      expiresAt - Date.now() + 3_000,
    );
    expect(eventsOnB.state.end!.code).toBe("UNAUTHORIZED");
    expect(eventsOnC.state.end!.code).toBe("UNAUTHORIZED");
    expect(terminal.seen.closed!.code).toBe(4403);
    for (const end of [eventsOnB.state.end!.at, eventsOnC.state.end!.at, terminal.seen.closed!.at]) {
      expect(end).toBeGreaterThanOrEqual(expiresAt);
      expect(end - expiresAt).toBeLessThan(1_000);
    }
    await expect(onC.overSocket.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    onB.close();
    onC.close();
  });

  it("a team's API token reaching its expiry, or revoked on A, ends what is open under it on every instance", async () => {
    const [, b, c] = cluster.instances;
    const teamToken = async (name: string) =>
      owner.trpc.apiToken.teamCreate.mutate({ teamId, name, scopes: ["read", "write"], expiresInDays: 1 });
    /** A subscription held on B and on C, and the terminal opened on C and served by B, all under `token`. */
    const holdOpen = async (token: string) => {
      const onB = connect(b!.url, { token });
      const onC = connect(c!.url, { token });
      const events = [onB, onC].map((client) =>
        watch((handlers) => client.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers)),
      );
      const terminal = await openTerminal(c!.url, { token }, projectId, terminalId);
      await until(() => events.every((e) => e.state.data > 0), "the backlogs on B and C");
      const ended = () => events.every((e) => !!e.state.end) && !!terminal.seen.closed;
      const endTimes = () => [...events.map((e) => e.state.end!.at), terminal.seen.closed!.at];
      return { onC, events, terminal, ended, endTimes, close: () => [onB, onC].forEach((client) => client.close()) };
    };

    // A token that simply reaches its expiry: nothing publishes an access change when it does.
    const expiring = await teamToken("nightly");
    const expiresAt = Date.now() + 5_000;
    await database.db.apiToken.update({
      where: { id: expiring.apiToken.id },
      data: { expiresAt: new Date(expiresAt) },
    });
    const expired = await holdOpen(expiring.token);
    expect(Date.now()).toBeLessThan(expiresAt);
    await until(expired.ended, "every connection under the token ended", expiresAt - Date.now() + 3_000);
    for (const e of expired.events) expect(e.state.end!.code).toBe("UNAUTHORIZED");
    expect(expired.terminal.seen.closed!.code).toBe(4403);
    for (const end of expired.endTimes()) {
      expect(end).toBeGreaterThanOrEqual(expiresAt);
      expect(end - expiresAt).toBeLessThan(1_000);
    }
    await expect(expired.onC.overSocket.account.me.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    expired.close();

    // A token revoked on A: its connections on B and C end at once.
    const revoked = await teamToken("deploy");
    const held = await holdOpen(revoked.token);
    const revokedAt = Date.now();
    await owner.trpc.apiToken.teamRevoke.mutate({ teamId, id: revoked.apiToken.id });
    await until(held.ended, "every connection under the revoked token ended", 2_000);
    for (const end of held.endTimes()) expect(end - revokedAt).toBeLessThan(2_000);
    const after = connect(b!.url, { token: revoked.token });
    await expect(after.trpc.project.list.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    after.close();
    held.close();
  });

  it("a team token's agent turn running on B stops when the token is revoked on A", async () => {
    const b = cluster.instances[1]!;
    const issued = await owner.trpc.apiToken.teamCreate.mutate({
      teamId,
      name: "agent",
      scopes: ["read", "run"],
      expiresInDays: 1,
    });
    await owner.trpc.agent.updateSettings.mutate({ projectId, stepLimit: 500 });
    const script = connect(b.url, { token: issued.token });
    const own = (await script.trpc.session.create.mutate({ projectId })).id;
    // A model that thinks aloud without end: the turn runs on B, which took the message.
    model.load({
      replies: Array.from({ length: 300 }, (_, i) => ({
        toolCalls: [{ id: `think_${i}`, name: "think", arguments: { thought: `step ${i}` } }],
      })),
    });
    const results = async () =>
      (await database.db.sessionEvent.count({ where: { sessionId: own, type: "tool_result" } })) as number;
    await script.trpc.session.send.mutate({ sessionId: own, text: "think it all through" });
    await until(async () => (await results()) >= 3, "the turn on B calling tools", 20_000);
    const revokedAt = Date.now();
    await owner.trpc.apiToken.teamRevoke.mutate({ teamId, id: issued.apiToken.id });
    const finished = () => database.db.sessionEvent.findFirst({ where: { sessionId: own, type: "turn_finished" } });
    await until(async () => !!(await finished()), "the turn's end on B", 5_000);
    const end = (await finished())!;
    expect(end.payload).toMatchObject({ reason: "cancelled", message: expect.stringContaining("API token") });
    expect(end.createdAt.getTime() - revokedAt).toBeLessThan(2_000);
    const ran = await results();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await results()).toBe(ran);
    script.close();
  });

  it("revoking a share link on A ends its viewer on B at once", async () => {
    const b = cluster.instances[1]!;
    const link = await owner.trpc.share.create.mutate({ sessionId, scope: "view", label: "For Gus" });
    const guest = connect(b.url, { shareToken: link.token });
    const events = watch((handlers) => guest.trpc.session.events.subscribe({ sessionId, afterSeq: 0 }, handlers));
    await until(() => events.state.data > 0, "the guest's backlog on B");
    const revokedAt = Date.now();
    await owner.trpc.share.revoke.mutate({ sessionId, linkId: link.id });
    await until(() => !!events.state.end, "the guest's stream on B ended", 2_000);
    expect(events.state.end!.code).toBe("FORBIDDEN");
    expect(events.state.end!.at - revokedAt).toBeLessThan(2_000);
    guest.close();
  });
});

describe("rate limits across instances", () => {
  it("counts share-link look-ups from one address on every instance against one limit", async () => {
    const urls = cluster.instances.map((instance) => instance.url);
    const answers: string[] = [];
    for (let i = 0; i < 31; i++) {
      const guest = connect(urls[i % urls.length]!);
      answers.push(
        await guest.trpc.share.resolve.query({ token: `guess-${i}` }).then(
          (result) => result.state,
          (error: { data?: { code?: string } }) => error.data?.code ?? "error",
        ),
      );
      guest.close();
    }
    expect(answers.slice(0, 30).every((answer) => answer !== "TOO_MANY_REQUESTS")).toBe(true);
    expect(answers[30]).toBe("TOO_MANY_REQUESTS");
  });
});

describe("the harness", () => {
  it("routes around an instance killed with SIGKILL, and starts it again on the same port and database", async () => {
    const c = cluster.instances[2]!;
    await c.kill9();
    expect(c.running).toBe(false);
    for (let i = 0; i < 6; i++) {
      const client = connect(cluster.url, { cookie: ann.cookie });
      // The first request after the kill may reach the dead instance once (502); a balancer's retry is the client's.
      const me = await client.trpc.account.me.query().catch(() => client.trpc.account.me.query());
      expect(me?.id).toBe(ann.id);
      client.close();
    }
    await c.start();
    const again = connect(c.url, { cookie: ann.cookie });
    expect((await again.trpc.account.me.query())?.id).toBe(ann.id);
    again.close();
  }, 120_000);
});

describe("a project's terminals belong to one instance; requests that land elsewhere are forwarded to it", () => {
  const ownerOf = async (projectId: string) => {
    const lease = await workspaceLeaseOf(database.db, projectId);
    return cluster.instances.find((instance) => instance.url === lease?.instanceUrl);
  };
  const client = (url: string) => connect(url, { cookie: ann.cookie });
  const typeAndRead = async (baseUrl: string, projectId: string, id: string, text: string) => {
    const terminal = await openTerminal(baseUrl, ann.cookie, projectId, id);
    terminal.type(`echo ${text}-$((40+2))\r`);
    await until(() => terminal.seen.output.includes(`${text}-42`), `the echo of ${text} through ${baseUrl}`, 10_000);
    terminal.ws.close();
  };
  /** A project of each test's own, with a terminal made through the balancer (a test below kills owners). */
  const ownedProject = async (name: string) => {
    const viaBalancer = client(cluster.url);
    const projectId = (await viaBalancer.trpc.project.create.mutate({ name })).id;
    const terminalId = (await viaBalancer.trpc.terminal.create.mutate({ projectId, cols: 80, rows: 24 })).id;
    viaBalancer.close();
    return { projectId, terminalId };
  };

  it("serves a terminal made through the balancer on every instance: sockets, lists, batches and mutations reach its owner", async () => {
    const { projectId, terminalId } = await ownedProject("Owned");
    const owner = await ownerOf(projectId);
    expect(owner?.running).toBe(true);
    for (const instance of cluster.instances) {
      await typeAndRead(instance.url, projectId, terminalId, `on-${instance.index}`);
      const onIt = client(instance.url);
      expect((await onIt.trpc.terminal.list.query({ projectId })).map((t) => t.id)).toEqual([terminalId]);
      onIt.close();
    }
    for (let i = 0; i < 3; i++) await typeAndRead(cluster.url, projectId, terminalId, `balanced-${i}`);

    // The browser batches: a batch naming the live procedure of one project goes to its owner whole.
    const other = cluster.instances.find((instance) => instance !== owner)!;
    const input = encodeURIComponent(JSON.stringify({ "0": { json: { projectId } } }));
    const batch = await fetch(`${other.url}/api/trpc/terminal.list,account.me?batch=1&input=${input}`, {
      headers: { cookie: ann.cookie },
    });
    const [list, me] = (await batch.json()) as Array<{ result: { data: { json: unknown } } }>;
    expect((list!.result.data.json as Array<{ id: string }>).map((t) => t.id)).toEqual([terminalId]);
    expect((me!.result.data.json as { id: string }).id).toBe(ann.id);

    // A mutation on a non-owner makes the terminal on the owner; closing it through another works too.
    const second = await client(other.url).trpc.terminal.create.mutate({ projectId, cols: 80, rows: 24 });
    const third = cluster.instances.find((instance) => instance !== owner && instance !== other)!;
    await typeAndRead(third.url, projectId, second.id, "second");
    await client(third.url).trpc.terminal.close.mutate({ projectId, terminalId: second.id });
    expect((await client(owner!.url).trpc.terminal.list.query({ projectId })).map((t) => t.id)).toEqual([terminalId]);
    expect((await ownerOf(projectId))?.index).toBe(owner!.index);
  });

  it("shows a file the project's shell writes on its holder to viewers on every instance, once, through the file-change bus", async () => {
    // Only the holder watches the disk (another instance's watcher would be blind on a network volume).
    const { projectId, terminalId } = await ownedProject("Watched");
    const owner = (await ownerOf(projectId))!;
    const others = cluster.instances.filter((instance) => instance !== owner);
    const viewers = [owner, ...others].map((instance) => {
      const viewer = client(instance.url);
      const seen: Array<{ type: string; path: string }> = [];
      const subscription = viewer.trpc.fs.changes.subscribe(
        { projectId },
        { onData: ({ data: change }) => void seen.push(change) },
      );
      return { viewer, seen, subscription };
    });
    // Each subscription is up once it hears of a file written through another instance.
    await until(
      async () => {
        await client(others[0]!.url).trpc.fs.write.mutate({
          projectId,
          path: "probe.txt",
          content: String(Date.now()),
          createParents: false,
        });
        await pause(200);
        return viewers.every(({ seen }) => seen.some((change) => change.path === "probe.txt"));
      },
      "every viewer hearing of the probe",
      15_000,
    );

    const terminal = await openTerminal(owner.url, ann.cookie, projectId, terminalId);
    terminal.type("echo from-the-shell > shell-wrote.txt\r");
    const heard = (seen: Array<{ type: string; path: string }>) =>
      seen.filter((change) => change.path === "shell-wrote.txt");
    await until(
      () => viewers.every(({ seen }) => heard(seen).length > 0),
      "every viewer hearing of the shell's file",
      10_000,
    );
    await pause(300);
    // Once each, also on the holder (its own watcher feeds its viewers through the bus only).
    for (const { seen } of viewers) expect(heard(seen).filter((change) => change.type === "add")).toHaveLength(1);
    terminal.ws.close();
    for (const { viewer, subscription } of viewers) {
      subscription.unsubscribe();
      viewer.close();
    }
  });

  it("serves the project's language server from its owner to a socket opened on any instance", async () => {
    const { projectId } = await ownedProject("Languages");
    const sockets: WebSocket[] = [];
    for (const instance of cluster.instances) {
      const ws = await openLanguage(instance.url, ann.cookie, projectId, "json");
      sockets.push(ws);
      const init = await jsonRpcCall(ws, 1, "initialize", { processId: null, rootUri: null, capabilities: {} });
      expect(init.result.capabilities.completionProvider).toBeTruthy();
    }
    // One server on the owner, with the three editors as its clients, whichever instance is asked.
    for (const instance of cluster.instances) {
      const status = await client(instance.url).trpc.language.status.query({ projectId });
      expect(status.map((entry) => [entry.server, entry.clients])).toEqual([["json", 3]]);
    }
    for (const ws of sockets) ws.close();
  }, 60_000);

  it("stops a project's shell on its owner when the project is deleted through another instance", async () => {
    const viaBalancer = client(cluster.url);
    const doomed = (await viaBalancer.trpc.project.create.mutate({ name: "Doomed" })).id;
    const doomedTerminal = (await viaBalancer.trpc.terminal.create.mutate({ projectId: doomed, cols: 80, rows: 24 }))
      .id;
    const holder = (await workspaceLeaseOf(database.db, doomed))!.instanceUrl;
    const terminal = await openTerminal(holder, ann.cookie, doomed, doomedTerminal);
    terminal.type("echo shell-pid-$$\r");
    await until(() => /shell-pid-\d+/.test(terminal.seen.output), "the shell's pid");
    const pid = Number(/shell-pid-(\d+)/.exec(terminal.seen.output)![1]);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    const elsewhere = cluster.instances.find((instance) => instance.url !== holder)!;
    await client(elsewhere.url).trpc.project.delete.mutate({ projectId: doomed });
    await until(() => !alive(), "the deleted project's shell gone", 5_000);
    expect(await workspaceLeaseOf(database.db, doomed)).toBeNull();
    viaBalancer.close();
  });

  it("refuses a forwarding header a client made up, on HTTP and on the terminal socket", async () => {
    const { projectId, terminalId } = await ownedProject("Forwarded");
    const owner = await ownerOf(projectId);
    const other = cluster.instances.find((instance) => instance !== owner)!;
    const at = String(Date.now());
    const ip = Buffer.from("203.0.113.7").toString("base64url");
    const wrongKey = createHmac("sha256", "not the server secret").update("x").digest();
    const path = `/api/trpc/terminal.list?input=${encodeURIComponent(JSON.stringify({ json: { projectId } }))}`;
    const forged = `${at}.${ip}.1.${createHmac("sha256", wrongKey).update(`${at}\n${ip}\n1\nGET\n${path}`).digest("base64url")}`;
    // What a peer sends: signed with the cluster's secret (an instance serves it itself).
    const peerKey = forwardingKey(instanceEnv(cluster.dataDir, database.url).BETTER_AUTH_SECRET!);
    for (const instance of [other, owner!]) {
      const honest = await fetch(`${instance.url}${path}`, { headers: { cookie: ann.cookie } });
      expect(honest.status).toBe(200);
      const fromPeer = await fetch(`${instance.url}${path}`, {
        headers: {
          cookie: ann.cookie,
          [FORWARDED_HEADER]: forwardingHeader(
            peerKey,
            { method: "GET", host: new URL(instance.url).host, url: path },
            "203.0.113.7",
            1,
          ),
        },
      });
      expect(fromPeer.status).toBe(200);
      for (const header of [forged, `${at}.${ip}.`, "anything"]) {
        const refused = await fetch(`${instance.url}${path}`, {
          headers: { cookie: ann.cookie, [FORWARDED_HEADER]: header },
        });
        expect(refused.status).toBe(403);
      }
      const socket = new WebSocket(
        terminalSocketUrl({ protocol: "http:", host: new URL(instance.url).host }, projectId, terminalId),
        {
          headers: { cookie: ann.cookie, origin: instance.url, [FORWARDED_HEADER]: forged },
        },
      );
      const status = await new Promise<number>((resolve) => {
        socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        socket.on("open", () => resolve(101));
        socket.on("error", () => {});
      });
      expect(status).toBe(403);
    }
  });

  it("previews a file open live with its unsaved text through any instance: fs.preview, alone or in the page's first batch, goes to the holder", async () => {
    const { projectId } = await ownedProject("Live preview");
    const holder = (await ownerOf(projectId))!;
    const viaHolder = client(holder.url);
    await viaHolder.trpc.fs.write.mutate({ projectId, path: "notes.txt", content: "saved\n", createParents: false });
    const url = liveDocSocketUrl({ protocol: "http:", host: new URL(holder.url).host }, projectId, "notes.txt");
    const editor = new LiveDocConnection(
      url,
      (at) => new WebSocket(at, { headers: { cookie: ann.cookie, origin: holder.url } }) as unknown as SocketLike,
    );
    try {
      await until(() => editor.connected, "the editor connected on the holder", 15_000);
      editor.text.insert(0, "unsaved ");
      for (const instance of cluster.instances.filter((one) => one.running)) {
        const onIt = client(instance.url);
        await until(
          async () =>
            (await onIt.trpc.fs.preview.query({ projectId, path: "notes.txt" }))?.content === "unsaved saved\n",
          `the unsaved text previewed through instance ${instance.index}`,
          10_000,
        );
        onIt.close();
      }
      // The page's first request, as lib/first-screen.ts sends it, through an instance that does not hold the project.
      const edge = cluster.instances.find((instance) => instance !== holder && instance.running)!;
      const paths = "account.status,project.get,fs.tree,session.list,fs.preview";
      const input = encodeURIComponent(
        JSON.stringify({
          "0": { json: null },
          "1": { json: { projectId } },
          "2": { json: { projectId, path: "", showIgnored: true } },
          "3": { json: { projectId, parentId: null } },
          "4": { json: { projectId, path: "notes.txt" } },
        }),
      );
      const batch = await fetch(`${edge.url}/api/trpc/${paths}?batch=1&input=${input}`, {
        headers: { cookie: ann.cookie },
      });
      const answers = (await batch.json()) as Array<{ result: { data: { json: unknown } } }>;
      expect(answers[4]!.result.data.json).toEqual({ content: "unsaved saved\n" });
      expect(
        (answers[2]!.result.data.json as { entries: Array<{ name: string }> }).entries.map((e) => e.name),
      ).toContain("notes.txt");
      const read = await viaHolder.trpc.fs.read.query({ projectId, path: "notes.txt" });
      expect(read.kind === "text" && read.content).toBe("saved\n");
    } finally {
      editor.destroy();
      viaHolder.close();
    }
  }, 60_000);

  it("keeps a live document through its holder's death: an editor on another instance reconnects by itself and types on, and saved text is intact", async () => {
    const { projectId } = await ownedProject("Live failover");
    const holder = (await ownerOf(projectId))!;
    const edge = cluster.instances.find((instance) => instance !== holder && instance.running)!;
    const viaEdge = client(edge.url);
    await viaEdge.trpc.fs.write.mutate({ projectId, path: "notes.txt", content: "saved\n", createParents: false });
    const url = liveDocSocketUrl({ protocol: "http:", host: new URL(edge.url).host }, projectId, "notes.txt");
    const editor = new LiveDocConnection(url, (at) => {
      const ws = new WebSocket(at, { headers: { cookie: ann.cookie, origin: edge.url } });
      // As a browser's: a refused upgrade (503 while the dead holder's lease lapses) is a close, then a retry.
      ws.on("error", () => undefined);
      return ws as unknown as SocketLike;
    });
    try {
      // Through the edge, forwarded to the holder.
      await until(() => editor.connected, "the editor connected through another instance", 15_000);
      editor.text.insert(0, "first ");
      await editor.save();
      editor.text.insert(editor.text.length, "unsaved\n");
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // the journal follows within 2 s
      editor.text.insert(editor.text.length, "late\n");
      await holder.kill9();
      await until(() => !editor.connected, "the editor cut off", 10_000);
      // By itself: the edge forwards to the next holder once the dead one's lease lapses.
      await until(() => editor.connected, "the editor reconnected by itself", 30_000);
      expect(editor.text.toString()).toBe("first saved\nunsaved\nlate\n");
      editor.text.insert(editor.text.length, "after\n");
      await editor.save();
      const read = await viaEdge.trpc.fs.read.query({ projectId, path: "notes.txt" });
      expect(read.kind === "text" && read.content).toBe("first saved\nunsaved\nlate\nafter\n");
      expect((await ownerOf(projectId))?.index).not.toBe(holder.index);
    } finally {
      editor.destroy();
      viaEdge.close();
      await holder.start();
    }
  }, 120_000);

  it("moves the lease to a live instance when the owner is killed with -9, and a new terminal works there", async () => {
    const { projectId } = await ownedProject("Survivor");
    const owner = (await ownerOf(projectId))!;
    await owner.kill9();
    const killedAt = Date.now();
    const viaBalancer = client(cluster.url);
    const created: { id?: string } = {};
    // Until the dead owner's lease lapses, its projects' requests are answered 503 (try again).
    await until(
      async () =>
        !!(created.id = (
          await viaBalancer.trpc.terminal.create.mutate({ projectId, cols: 80, rows: 24 }).catch(() => null)
        )?.id),
      "a terminal after the owner died",
      15_000,
    );
    const movedAfter = Date.now() - killedAt;
    const next = (await ownerOf(projectId))!;
    expect(next.index).not.toBe(owner.index);
    expect(next.running).toBe(true);
    expect(movedAfter).toBeLessThan(10_000);
    await typeAndRead(cluster.url, projectId, created.id!, "after-kill");
    expect((await viaBalancer.trpc.terminal.list.query({ projectId })).map((t) => t.id)).toEqual([created.id!]);
    viaBalancer.close();

    // An owner that shuts down gives its leases back at once: the next request takes the project without waiting.
    await next.stop();
    expect(await workspaceLeaseOf(database.db, projectId)).toBeNull();
    await Promise.all([owner.start(), next.start()]);
  }, 120_000);
});

describe("workspace runners hold the projects of the web instances that send them there", () => {
  let runners: ClusterInstance[] = [];
  let runnersUrl: LoadBalancer | null = null;
  let web: ClusterInstance | null = null;

  beforeAll(async () => {
    const env = instanceEnv(cluster.dataDir, database.url, { TANDEM_CLUSTER: "1" });
    runners = [
      createInstance(10, await freePort(), env, "server/cluster/workspace-runner-main.ts"),
      createInstance(11, await freePort(), env, "server/cluster/workspace-runner-main.ts"),
    ];
    await Promise.all(runners.map((runner) => runner.start()));
    // What a Kubernetes Service in front of the runner pods does: any runner, round-robin.
    runnersUrl = await startLoadBalancer(() => runners.map((runner) => runner.url));
    web = createInstance(
      12,
      await freePort(),
      instanceEnv(cluster.dataDir, database.url, { TANDEM_CLUSTER: "1", TANDEM_WORKSPACE_RUNNERS_URL: runnersUrl.url }),
    );
    await web.start();
  }, 120_000);

  afterAll(async () => {
    await web?.stop();
    await runnersUrl?.close();
    await Promise.all(runners.map((runner) => runner.stop()));
  });

  it("runs a terminal made through a web instance on one runner, whichever runner each request reaches first", async () => {
    const onWeb = connect(web!.url, { cookie: ann.cookie });
    const projectId = (await onWeb.trpc.project.create.mutate({ name: "On a runner" })).id;
    const terminalId = (await onWeb.trpc.terminal.create.mutate({ projectId, cols: 80, rows: 24 })).id;
    const holder = (await workspaceLeaseOf(database.db, projectId))?.instanceUrl;
    expect(runners.map((runner) => runner.url)).toContain(holder);
    // Four sockets and lists in a row: the runners' balancer takes them to both runners in turn.
    for (let i = 0; i < 4; i++) {
      const terminal = await openTerminal(web!.url, ann.cookie, projectId, terminalId);
      terminal.type(`echo runner-${i}-$((40+2))\r`);
      await until(() => terminal.seen.output.includes(`runner-${i}-42`), `the echo of socket ${i}`, 10_000);
      terminal.ws.close();
      expect((await onWeb.trpc.terminal.list.query({ projectId })).map((t) => t.id)).toEqual([terminalId]);
    }
    expect((await workspaceLeaseOf(database.db, projectId))?.instanceUrl).toBe(holder);

    // A web instance's request (one hop) reaching the runner without the project is passed on to
    // the holder; a runner's (two hops) is served where it lands, which has no terminal.
    const key = forwardingKey(instanceEnv(cluster.dataDir, database.url).BETTER_AUTH_SECRET!);
    const other = runners.find((runner) => runner.url !== holder)!;
    const path = `/api/trpc/terminal.list?input=${encodeURIComponent(JSON.stringify({ json: { projectId } }))}`;
    const listed = async (hops: number) => {
      const response = await fetch(`${other.url}${path}`, {
        headers: {
          cookie: ann.cookie,
          [FORWARDED_HEADER]: forwardingHeader(
            key,
            { method: "GET", host: new URL(other.url).host, url: path },
            "127.0.0.1",
            hops,
          ),
        },
      });
      return ((await response.json()) as { result: { data: { json: Array<{ id: string }> } } }).result.data.json.map(
        (t) => t.id,
      );
    };
    expect(await listed(1)).toEqual([terminalId]);
    expect(await listed(2)).toEqual([]);
    onWeb.close();
  });

  it("has a runner hold a project whose files someone views through a web instance, and shows them its changes", async () => {
    const onWeb = connect(web!.url, { cookie: ann.cookie });
    const projectId = (await onWeb.trpc.project.create.mutate({ name: "Viewed on a runner" })).id;
    // Asking to hold it is for the instances alone: a client's own request is refused, and takes nothing.
    for (const target of [web!, ...runners]) {
      const asked = await fetch(`${target.url}/api/cluster/hold?projectId=${projectId}`, {
        method: "POST",
        headers: { cookie: ann.cookie },
      });
      expect(asked.status).toBe(403);
    }
    expect(await workspaceLeaseOf(database.db, projectId)).toBeNull();

    const seen: string[] = [];
    const subscription = onWeb.trpc.fs.changes.subscribe(
      { projectId },
      { onData: ({ data: change }) => void seen.push(change.path) },
    );
    await until(
      async () => !!(await workspaceLeaseOf(database.db, projectId)),
      "a runner holding the viewed project",
      10_000,
    );
    expect(runners.map((runner) => runner.url)).toContain(
      (await workspaceLeaseOf(database.db, projectId))?.instanceUrl,
    );
    await until(
      async () => {
        await onWeb.trpc.fs.write.mutate({
          projectId,
          path: "seen-from-the-web.txt",
          content: String(Date.now()),
          createParents: false,
        });
        await pause(200);
        return seen.includes("seen-from-the-web.txt");
      },
      "the web viewer hearing of the file",
      15_000,
    );
    subscription.unsubscribe();
    onWeb.close();
  });

  it("serves only requests the web instances signed: a client going to a runner directly is refused", async () => {
    for (const runner of runners) {
      const direct = connect(runner.url, { cookie: ann.cookie });
      await expect(direct.trpc.account.me.query()).rejects.toThrow();
      direct.close();
      const response = await fetch(`${runner.url}/api/trpc/account.me`, { headers: { cookie: ann.cookie } });
      expect(response.status).toBe(403);
      expect((await fetch(`${runner.url}/api/health`)).status).toBe(200);
    }
  });
});
