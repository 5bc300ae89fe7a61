import path from "node:path";
import { ConfigError, loadConfig } from "@/server/env";
import { createServices, StartupError } from "@/server/services";
import { startServer } from "@/server/start-server";

// A workspace runner: the process that holds projects' terminals, language servers and MCP
// connections for the web instances of a cluster that set TANDEM_WORKSPACE_RUNNERS_URL (the unit a
// Kubernetes pod runs, deploy/k8s/workspace-runner.yaml). It serves only the requests the web
// instances forward to it, signed with the server secret (server/cluster/workspace-forwarding.ts),
// after checking the person's rights again itself; it holds each project by the workspace lease,
// passing a request for a project another runner holds on to that runner. It needs the same
// database, secret and data volume as the web instances, and TANDEM_CLUSTER=1.

async function main() {
  const config = loadConfig();
  if (!config.cluster) throw new ConfigError("A workspace runner serves a cluster: set TANDEM_CLUSTER=1 and DATABASE_URL.");
  const { services, dispose } = await createServices({ ...config, workspaceRunnersUrl: undefined }, () => {}, { runner: true });
  const running = await startServer(services, { dir: path.resolve(import.meta.dirname, "../.."), pages: false });
  console.log(`Tandem instance ready on ${running.url} (workspace runner)`);
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
  else console.error("Tandem workspace runner failed to start:", error);
  process.exit(1);
});
