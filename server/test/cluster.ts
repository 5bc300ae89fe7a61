import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startLoadBalancer, type LoadBalancer } from "./load-balancer";
import { freePort } from "@/scripts/free-port.mjs";

// Several real Tandem instances on loopback, one Postgres, one data directory (the shared disk a
// cluster mounts), and a load balancer in front: what the multi-instance tests and `bench:cluster`
// run against. Each instance is its own process (server/cluster/instance-main.ts), so a test can
// kill one with SIGKILL and start it again.

export type ClusterInstance = {
  readonly index: number;
  /** Where this instance listens (its port stays the same across restarts). */
  readonly url: string;
  readonly running: boolean;
  /** Everything the instance printed, for a failing test's message. */
  output(): string;
  kill9(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<void>;
  /** Starts it again (after kill9 or stop) on the same port, database and data directory. */
  start(): Promise<void>;
};

export type Cluster = {
  instances: ClusterInstance[];
  /** The balancer's URL: requests and WebSockets go round-robin to the instances that are up. */
  url: string;
  dataDir: string;
  stop(): Promise<void>;
};

export type ClusterOptions = {
  databaseUrl: string;
  instances?: number;
  /** Extra environment for every instance (a model server's URL, TANDEM_BUS, ...). */
  env?: Record<string, string>;
  /** Defaults to a fresh temporary directory, removed by stop(). */
  dataDir?: string;
};

const ROOT = path.resolve(import.meta.dirname, "../..");
const START_TIMEOUT_MS = 120_000;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "tandem-cluster-")));
  const instances: ClusterInstance[] = [];
  for (let index = 0; index < (options.instances ?? 3); index++) {
    instances.push(createInstance(index, await freePort(), instanceEnv(dataDir, options.databaseUrl, options.env)));
  }
  let balancer: LoadBalancer | null = null;
  try {
    // The first instance applies the migrations alone; the others then start side by side.
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((instance) => instance.start()));
    balancer = await startLoadBalancer(() =>
      instances.filter((instance) => instance.running).map((instance) => instance.url),
    );
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.kill9()));
    throw error;
  }
  return {
    instances,
    url: balancer.url,
    dataDir,
    async stop() {
      await balancer?.close();
      await Promise.all(instances.map((instance) => instance.stop()));
      if (ownDataDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A fixed environment, not the test process's: an instance reads only what is given here. Every
 * instance signs and checks the same login cookies and share tokens.
 */
export function instanceEnv(
  dataDir: string,
  databaseUrl: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: dataDir,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    TANDEM_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    BETTER_AUTH_SECRET: "cluster-test-secret-".padEnd(48, "x"),
    TANDEM_SANDBOX: "none",
    ...extra,
  };
}

/** One instance process (instance-main.ts, or `entry`: workspace-runner-main.ts) on `port`, not started yet. */
export function createInstance(
  index: number,
  port: number,
  env: NodeJS.ProcessEnv,
  entry = "server/cluster/instance-main.ts",
): ClusterInstance {
  let child: ChildProcess | null = null;
  let output = "";
  const exited = (process: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (process.exitCode !== null || process.signalCode !== null) return resolve();
      process.once("exit", () => resolve());
    });
  return {
    index,
    url: `http://127.0.0.1:${port}`,
    get running() {
      return child !== null;
    },
    output: () => output,
    async start() {
      if (child) return;
      const process_ = spawn(process.execPath, ["--import", "tsx", entry], {
        cwd: ROOT,
        env: { ...env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = process_;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`instance ${index} did not start:\n${output}`)),
          START_TIMEOUT_MS,
        );
        const onData = (chunk: Buffer) => {
          output += chunk;
          if (output.includes("Tandem instance ready")) {
            clearTimeout(timer);
            resolve();
          }
        };
        process_.stdout!.on("data", onData);
        process_.stderr!.on("data", onData);
        process_.once("exit", (code, signal) => {
          if (child === process_) child = null;
          clearTimeout(timer);
          reject(new Error(`instance ${index} exited (${code ?? signal}):\n${output}`));
        });
      });
    },
    async kill9() {
      const process_ = child;
      if (!process_) return;
      child = null;
      process_.kill("SIGKILL");
      await exited(process_);
    },
    async stop() {
      const process_ = child;
      if (!process_) return;
      child = null;
      process_.kill("SIGTERM");
      const force = setTimeout(() => process_.kill("SIGKILL"), 10_000);
      await exited(process_);
      clearTimeout(force);
    },
  };
}
