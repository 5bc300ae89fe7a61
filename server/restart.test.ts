import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTRPCClient, createWSClient, httpLink, splitLink, wsLink } from "@trpc/client";
import superjson from "superjson";
import pg from "pg";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/api/root";
import { createTestDatabase } from "@/server/test/database";
import { freePort } from "@/scripts/free-port.mjs";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import {
  applyStreamItem,
  committedEvents,
  emptyLiveLog,
  type LiveLog,
  type SessionStreamItem,
} from "@/lib/session-events";
import { foldTranscript } from "@/lib/session-transcript";
import { until } from "@/server/test/until";

// The real thing: a Tandem server process (`node --import tsx server/index.ts`) killed with
// SIGKILL mid-turn and started again on the same database, driven like a browser would drive it:
// tRPC over HTTP with a login cookie, session events over WebSocket.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let model: ModelServer;
let dataDir: string;
let port: number;
let server: ChildProcess | null = null;
let cookie = "";

async function boot() {
  const built = existsSync(".next/tandem-build-hash");
  const child = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      TANDEM_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      TANDEM_SANDBOX: "none",
      TANDEM_MODEL: "openai-compatible:scripted",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url,
      TANDEM_OPENAI_COMPATIBLE_API_KEY: "test",
      // Use the production build when there is a finished one (scripts/start.mjs stamps it last;
      // npm test builds it beside the unit tests); otherwise Next in development mode.
      TANDEM_DEV: built ? "" : "1",
      NODE_ENV: built ? "production" : "development",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes("Tandem is ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  server = child;
}

function kill9() {
  const child = server!;
  server = null;
  return new Promise<void>((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

function clients() {
  const base = `http://127.0.0.1:${port}`;
  class CookieWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } });
    }
  }
  const ws = createWSClient({
    url: `ws://127.0.0.1:${port}/api/trpc/ws`,
    WebSocket: CookieWebSocket as unknown as typeof globalThis.WebSocket,
  });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: wsLink({ client: ws, transformer: superjson }),
        false: httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => ({ cookie }) }),
      }),
    ],
  });
  return { trpc, close: () => ws.close() };
}

/** Follows a session's events over WebSocket into `log`, from its lastSeq. */
function follow(trpc: ReturnType<typeof clients>["trpc"], sessionId: string, log: LiveLog, seen: SessionStreamItem[]) {
  return trpc.session.events.subscribe(
    { sessionId, afterSeq: log.lastSeq },
    {
      onData: (tracked) => {
        const item = tracked.data;
        seen.push(item);
        applyStreamItem(log, item);
      },
    },
  );
}

const committedSeqs = (items: SessionStreamItem[]) => items.flatMap((i) => committedEvents(i).map((e) => e.seq));

beforeAll(async () => {
  database = await createTestDatabase();
  model = await startModelServer({
    scenario: {
      replies: [
        {
          match: "Write a long story",
          text: "Once upon a time there was a server that never stopped talking about itself ",
          delayMs: 15,
          hang: true,
        },
        { match: "Write a long story", text: "Resumed and finished." },
        {
          match: "Ask me",
          toolCalls: [{ name: "ask_user", arguments: { question: "Proceed?", options: ["yes", "no"] } }],
        },
        { match: "answered: yes", text: "Proceeding." },
        { match: "Left unanswered", text: "Answered after the restart." },
        // Twice: two sessions on branches run this turn at once (each reply is used once).
        ...[1, 2].flatMap((n) => [
          {
            match: "Work on the branch",
            toolCalls: [
              {
                id: `call_branch_${n}`,
                name: "write_file",
                arguments: { path: "branch.txt", content: "on the branch\n" },
              },
            ],
          },
          { match: "branch.txt", text: "Written on the branch." },
        ]),
      ],
    },
  });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-restart-"));
  port = await freePort();
  await boot();
  const response = await fetch(`http://127.0.0.1:${port}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "kill9@example.com", password: "correct horse battery", name: "Kim" }),
  });
  expect(response.ok).toBe(true);
  cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}, 200_000);

afterAll(async () => {
  if (server) await kill9();
  await model?.close();
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("kill -9 and restart", () => {
  it("marks the cut-off turn interrupted, resumes it from the log, and viewers see no gap or duplicate", async () => {
    let c = clients();
    const project = await c.trpc.project.create.mutate({ name: "Restart" });
    const session = await c.trpc.session.create.mutate({ projectId: project.id });
    const log = emptyLiveLog();
    const seen: SessionStreamItem[] = [];
    let sub = follow(c.trpc, session.id, log, seen);
    await c.trpc.session.send.mutate({ sessionId: session.id, text: "Write a long story" });
    await until(() => seen.filter((i) => i.kind === "delta").length >= 5, "streamed text");

    await kill9();
    sub.unsubscribe();
    c.close();
    await boot();
    c = clients();

    const interrupted = await c.trpc.session.get.query({ sessionId: session.id });
    expect(interrupted.status).toBe("interrupted");
    sub = follow(c.trpc, session.id, log, seen);
    await until(
      () => log.events.some((e) => e.type === "turn_finished" && e.payload.reason === "interrupted"),
      "the interrupted event",
    );

    await c.trpc.session.resume.mutate({ sessionId: session.id });
    await until(
      () => log.events.some((e) => e.type === "turn_finished" && e.payload.reason === "completed"),
      "the resumed turn",
    );
    await until(() => log.events.at(-1)?.type === "status", "the final status");
    sub.unsubscribe();

    const seqs = committedSeqs(seen);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // gap-free and duplicate-free across the restart
    expect(log.events.map((e) => e.seq)).toEqual(seqs);
    const transcript = foldTranscript(log.events, log.provisional);
    expect(transcript.items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text)).toEqual([
      "Interrupted: the server stopped during this turn. Resume to continue.",
    ]);
    expect(transcript.items.at(-1)).toMatchObject({
      kind: "assistant",
      text: "Resumed and finished.",
      streaming: false,
    });
    expect((await c.trpc.session.get.query({ sessionId: session.id })).status).toBe("idle");
    c.close();
  }, 300_000);

  it("keeps a pending question across a restart; answering it continues the turn", async () => {
    let c = clients();
    const [project] = await c.trpc.project.list.query();
    const session = await c.trpc.session.create.mutate({ projectId: project!.id });
    await c.trpc.session.send.mutate({ sessionId: session.id, text: "Ask me first" });
    await until(
      async () => (await c.trpc.session.get.query({ sessionId: session.id })).status === "waiting_approval",
      "the question",
    );

    await kill9();
    c.close();
    await boot();
    c = clients();

    const waiting = await c.trpc.session.get.query({ sessionId: session.id });
    expect(waiting.status).toBe("waiting_approval");
    await c.trpc.approval.respond.mutate({
      approvalId: waiting.pendingApprovals[0]!.id,
      decision: "approve",
      answer: "yes",
    });
    await until(
      async () => (await c.trpc.session.get.query({ sessionId: session.id })).status === "idle",
      "the turn to finish",
    );
    const log = emptyLiveLog();
    const seen: SessionStreamItem[] = [];
    const sub = follow(c.trpc, session.id, log, seen);
    await until(() => log.events.some((e) => e.type === "turn_finished"), "the log");
    sub.unsubscribe();
    const result = log.events.find((e) => e.type === "tool_result");
    expect(result?.type === "tool_result" && result.payload.llm).toBe("Kim answered: yes");
    expect(foldTranscript(log.events).items.at(-1)).toMatchObject({ kind: "assistant", text: "Proceeding." });
    c.close();
  }, 300_000);

  it("keeps two branch sessions' worktrees and their parallel turns across a restart; each finishes in its own worktree", async () => {
    let c = clients();
    const project = await c.trpc.project.create.mutate({ name: "Branches" });
    const main = path.join(dataDir, "workspaces", project.id);
    await fs.writeFile(path.join(main, "README.md"), "main\n");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "safe.directory=*", "-c", "user.name=K", "-c", "user.email=k@example.com", ...args], {
        cwd: main,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    git("init", "-q", "-b", "main");
    git("add", ".");
    git("commit", "-qm", "first");
    // Two sessions on branches of their own, each in the middle of a turn (waiting on its write).
    const sessions = [
      await c.trpc.tree.startSession.mutate({ projectId: project.id, title: "Branch work" }),
      await c.trpc.tree.startSession.mutate({ projectId: project.id, title: "Second branch" }),
    ];
    for (const session of sessions)
      await c.trpc.session.send.mutate({ sessionId: session.id, text: "Work on the branch" });
    for (const session of sessions)
      await until(
        async () => (await c.trpc.session.get.query({ sessionId: session.id })).status === "waiting_approval",
        "the approval of the write",
      );

    await kill9();
    c.close();
    await boot();
    c = clients();

    const trees = await c.trpc.tree.list.query({ projectId: project.id });
    expect(trees.map((t) => [t.sessionId, t.branch, t.state]).sort()).toEqual(
      [
        [sessions[0]!.id, "tandem/branch-work", "open"],
        [sessions[1]!.id, "tandem/second-branch", "open"],
      ].sort(),
    );
    for (const session of sessions) {
      const waiting = await c.trpc.session.get.query({ sessionId: session.id });
      expect(waiting.status).toBe("waiting_approval");
      await c.trpc.approval.respond.mutate({ approvalId: waiting.pendingApprovals[0]!.id, decision: "approve" });
    }
    for (const session of sessions) {
      await until(
        async () => (await c.trpc.session.get.query({ sessionId: session.id })).status === "idle",
        "the turn to finish",
      );
      const worktree = path.join(dataDir, "worktrees", project.id, session.id);
      expect(await fs.readFile(path.join(worktree, "branch.txt"), "utf8")).toBe("on the branch\n");
      const read = await c.trpc.fs.read.query({ projectId: project.id, tree: session.id, path: "branch.txt" });
      expect(read).toMatchObject({ kind: "text", content: "on the branch\n" });
    }
    expect(existsSync(path.join(main, "branch.txt"))).toBe(false);
    c.close();
  }, 300_000);

  it("answers at start-up a message that was stored but whose turn never started", async () => {
    const c = clients();
    const project = await c.trpc.project.create.mutate({ name: "Left message" });
    const session = await c.trpc.session.create.mutate({ projectId: project.id });
    c.close();
    await kill9();
    // What a shutdown leaves when a message arrives as it stops (stored, no turn started), and a
    // crash between storing a message and starting its turn.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO session_event ("sessionId", seq, type, payload, "authorId", "createdAt")
         SELECT $1, coalesce(max(seq), 0) + 1, 'user_message', $2::jsonb, u.id, now() AT TIME ZONE 'UTC'
         FROM "user" u LEFT JOIN session_event e ON e."sessionId" = $1 WHERE u.email = $3 GROUP BY u.id`,
        [session.id, JSON.stringify({ text: "Left unanswered", authorName: "Kim" }), "kill9@example.com"],
      );
      await boot();
      await until(
        async () =>
          (
            await db.query(`SELECT 1 FROM session_event WHERE "sessionId" = $1 AND type = 'turn_finished'`, [
              session.id,
            ])
          ).rowCount === 1,
        "the answer",
      );
      const { rows } = await db.query<{ text: string }>(
        `SELECT payload->>'text' AS text FROM session_event WHERE "sessionId" = $1 AND type = 'assistant_delta' ORDER BY seq`,
        [session.id],
      );
      expect(rows.map((r) => r.text).join("")).toBe("Answered after the restart.");
    } finally {
      await db.end();
    }
  }, 300_000);
});
