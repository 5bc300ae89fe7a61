import { applyStreamItem, emptyLiveLog, type LiveLog } from "@/lib/session-events";
import { connect as clusterConnect, signUp as clusterSignUp } from "./cluster-client";
import { freePort } from "@/scripts/free-port.mjs";
import { createInstance, instanceEnv } from "./cluster";

// Single Tandem processes for the kill -9 tests, without a balancer: each on a free loopback port,
// all on one database and one data directory (the shared disk), started and killed one by one.
// They are server/test/cluster.ts's instances (server/cluster/instance-main.ts), with the scripted model configured.

export type Instance = {
  name: string;
  port: number;
  /** Everything the process printed so far. */
  output(): string;
  kill9(): Promise<void>;
  /** Asks it to shut down (SIGTERM, as a rolling restart does) and waits until it has. */
  terminate(): Promise<void>;
};

export async function startInstance(o: {
  name: string;
  dataDir: string;
  databaseUrl: string;
  modelUrl: string;
  cluster: boolean;
}): Promise<Instance> {
  const port = await freePort();
  const instance = createInstance(
    0,
    port,
    instanceEnv(o.dataDir, o.databaseUrl, {
      TANDEM_CLUSTER: o.cluster ? "1" : "0",
      TANDEM_MODEL: "openai-compatible:scripted",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: o.modelUrl,
      TANDEM_OPENAI_COMPATIBLE_API_KEY: "test",
    }),
  );
  await instance.start().catch((error: Error) => {
    throw new Error(`${o.name}: ${error.message}`);
  });
  return {
    name: o.name,
    port,
    output: () => instance.output(),
    kill9: () => instance.kill9(),
    terminate: () => instance.stop(),
  };
}

const urlOf = (instance: Instance) => `http://127.0.0.1:${instance.port}`;

export const signUp = (instance: Instance, email: string, name: string): Promise<string> =>
  clusterSignUp(urlOf(instance), email, name);

/** A browser's view of one instance: tRPC over HTTP, subscriptions over WebSocket, with a login cookie. */
export const connect = (instance: Instance, cookie: string) => clusterConnect(urlOf(instance), { cookie });

/**
 * Reads a session's whole log through an instance, until `done` holds for it. Events another
 * instance appends reach this one's subscribers only through a shared bus, so the log is read
 * again from the start every couple of seconds until it is complete.
 */
export async function readLog(
  client: ReturnType<typeof connect>,
  sessionId: string,
  done: (log: LiveLog) => boolean,
  ms = 60_000,
): Promise<LiveLog> {
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
  throw new Error(
    `the log of ${sessionId} did not reach the expected state; last: ${JSON.stringify(last.events.at(-1))}`,
  );
}
