// The model thread's entry. Node starts a worker from JavaScript, so this loads tsx first, as
// scripts/start.mjs does for the server, and with source maps off unless asked for (see there).
import { register } from "tsx/esm/api";

register();
if (!process.execArgv.includes("--enable-source-maps") && !process.env.NODE_OPTIONS?.includes("--enable-source-maps")) {
  process.setSourceMapsEnabled(false);
}
await import("./worker.ts");
