import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { createTRPCClient, createWSClient, httpLink, splitLink, wsLink } from "@trpc/client";
import superjson from "superjson";
import WebSocket from "ws";
import type { AppRouter } from "@/server/api/root";
import { applyStreamItem, emptyLiveLog, type LiveLog } from "@/lib/session-events";

// Real Tandem server processes for tests (test-instance-entry.ts: the API without pages) on one database and
// one data directory (the shared disk), each on a free loopback port, that a test can kill -9.

export type Instance = {
  name: string;
  port: number;
  /** Everything the process printed so far. */
  output(): string;
  kill9(): Promise<void>;
  /** Asks it to shut down (SIGTERM, as a rolling restart does) and waits until it has. */
  terminate(): Promise<void>;
};

const repoRoot = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export async function startInstance(o: { name: string; dataDir: string; databaseUrl: string; modelUrl: string; cluster: boolean }): Promise<Instance> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/cluster/test-instance-entry.ts"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      TANDEM_DATA_DIR: o.dataDir,
      DATABASE_URL: o.databaseUrl,
      TANDEM_CLUSTER: o.cluster ? "1" : "0",
      TANDEM_SANDBOX: "none",
      TANDEM_MODEL: "openai-compatible:scripted",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: o.modelUrl,
      TANDEM_OPENAI_COMPATIBLE_API_KEY: "test",
      NODE_ENV: "production",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exited = false;
  child.on("exit", () => (exited = true));
  const signal = (name: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      child.on("exit", () => resolve());
      child.kill(name);
    });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${o.name} did not start:\n${output}`)), 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes("Tandem instance ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${o.name} exited with ${code}:\n${output}`)));
  });
  return {
    name: o.name,
    port,
    output: () => output,
    kill9: () => signal("SIGKILL"),
    terminate: () => signal("SIGTERM"),
  };
}

export async function signUp(instance: Instance, email: string, name: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${instance.port}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", name }),
  });
  if (!response.ok) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  return response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

/** A browser's view of one instance: tRPC over HTTP, subscriptions over WebSocket, with a login cookie. */
export function connect(instance: Instance, cookie: string) {
  class CookieWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } });
    }
  }
  const ws = createWSClient({ url: `ws://127.0.0.1:${instance.port}/api/trpc/ws`, WebSocket: CookieWebSocket as unknown as typeof globalThis.WebSocket });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: wsLink({ client: ws, transformer: superjson }),
        false: httpLink({ url: `http://127.0.0.1:${instance.port}/api/trpc`, transformer: superjson, headers: () => ({ cookie }) }),
      }),
    ],
  });
  return { trpc, close: () => ws.close() };
}

/**
 * Reads a session's whole log through an instance, until `done` holds for it. Events another
 * instance appends reach this one's subscribers only through a shared bus, so the log is read
 * again from the start every couple of seconds until it is complete.
 */
export async function readLog(client: ReturnType<typeof connect>, sessionId: string, done: (log: LiveLog) => boolean, ms = 60_000): Promise<LiveLog> {
  const deadline = Date.now() + ms;
  let last: LiveLog = emptyLiveLog();
  while (Date.now() < deadline) {
    const log = emptyLiveLog();
    last = log;
    const complete = await new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.unsubscribe();
        resolve(false);
      }, 2_000);
      const sub = client.trpc.session.events.subscribe(
        { sessionId, afterSeq: 0 },
        {
          onData: (tracked) => {
            applyStreamItem(log, tracked.data);
            if (done(log)) {
              clearTimeout(timer);
              sub.unsubscribe();
              resolve(true);
            }
          },
          onError: reject,
        },
      );
    });
    if (complete) return log;
  }
  throw new Error(`the log of ${sessionId} did not reach the expected state; last: ${JSON.stringify(last.events.at(-1))}`);
}

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
