import path from "node:path";
import type { Config } from "@/server/env/config";
import { ConfigError, loadConfig } from "@/server/env/load-config";
import { createServices, StartupError } from "@/server/services";
import { startServer } from "@/server/start-server";

// The life of an API-only Tandem process (tRPC over HTTP and WebSocket, terminals, language and
// file transfer; no Next pages): a cluster instance (instance-main.ts) or a workspace runner
// (workspace-runner-main.ts). Both are the same services and server as server/index.ts, without
// the page build to wait for, stopped in order on SIGTERM so held turns and leases are given back.

export type ApiProcess = {
  /** Said after "Tandem instance ready on <url>", which server/test/cluster.ts waits for. */
  label?: string;
  /** The configuration this kind of process runs with, or a ConfigError when it cannot run. */
  configure?(config: Config): Config;
  runner?: boolean;
};

export function serveApi(kind: ApiProcess) {
  main(kind).catch((error) => {
    if (error instanceof ConfigError || error instanceof StartupError) console.error(error.message);
    else console.error(`Tandem ${kind.label ?? "instance"} failed to start:`, error);
    process.exit(1);
  });
}

async function main(kind: ApiProcess) {
  const loaded = loadConfig();
  const config = kind.configure ? kind.configure(loaded) : loaded;
  const { services, shuttingDown, dispose } = await createServices(config, () => {}, { runner: kind.runner });
  const running = await startServer(services, { dir: path.resolve(import.meta.dirname, "../.."), pages: false });
  console.log(`Tandem instance ready on ${running.url}${kind.label ? ` (${kind.label})` : ""}`);
  const stop = async () => {
    shuttingDown();
    await running.close().catch((error) => console.error(error));
    await dispose().catch((error) => console.error(error));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}
