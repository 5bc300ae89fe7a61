import path from "node:path";
import { ConfigError, loadConfig } from "@/server/env";
import { createServices, StartupError } from "@/server/services";
import { startServer } from "@/server/start-server";

// One Tandem instance serving the API only (tRPC over HTTP and WebSocket, terminals, file
// transfer; no Next pages), as the multi-instance harness (test-cluster.ts) and `bench:cluster`
// start it: the same services and server as server/index.ts, without the page build to wait for.

async function main() {
  const config = loadConfig();
  const { services, dispose } = await createServices(config, () => {});
  const running = await startServer(services, { dir: path.resolve(import.meta.dirname, "../.."), pages: false });
  console.log(`Tandem instance ready on ${running.url}`);
  const stop = async () => {
    await running.close().catch((error) => console.error(error));
    await dispose().catch((error) => console.error(error));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof StartupError) console.error(error.message);
  else console.error("Tandem instance failed to start:", error);
  process.exit(1);
});
