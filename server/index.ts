import path from "node:path";
import { ConfigError, loadConfig } from "@/server/env/load-config";
import { createServices, StartupError } from "@/server/services";
import { startServer } from "@/server/start-server";

async function main() {
  const config = loadConfig();
  const { services, sandboxMode, shuttingDown, dispose } = await createServices(config);
  const running = await startServer(services, { dir: path.resolve(import.meta.dirname, "..") });
  console.log(`Tandem is ready on ${running.url} (data: ${config.dataDir}, sandbox: ${sandboxMode})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    // The signal may have reached the whole process group, language servers included.
    shuttingDown();
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await running.close().catch((error) => console.error(error));
    await dispose().catch((error) => console.error(error));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof StartupError) console.error(error.message);
  else console.error("Tandem failed to start:", error);
  process.exit(1);
});
