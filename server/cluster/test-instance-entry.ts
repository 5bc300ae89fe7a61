import path from "node:path";
import { createServices } from "@/server/services";
import { startServer } from "@/server/start-server";

// One Tandem instance for the kill -9 tests (test-instances.ts): the services and server of
// server/index.ts serving the API only, so several start side by side without a page build.

const { services, dispose } = await createServices((await import("@/server/env")).loadConfig());
const running = await startServer(services, { dir: path.resolve(import.meta.dirname, "../.."), pages: false });
console.log(`Tandem instance ready on ${running.url}`);
process.on("SIGTERM", () => {
  void (async () => {
    await running.close().catch((error: unknown) => console.error(error));
    await dispose().catch((error: unknown) => console.error(error));
    process.exit(0);
  })();
});
