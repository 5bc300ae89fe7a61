import { createRequire } from "node:module";
import path from "node:path";

// Node's fetch ignores HTTP(S)_PROXY unless NODE_USE_ENV_PROXY=1, which Node honours from 22.21
// and 24.5; in the sandbox that means no network at all (EAI_AGAIN: there is no DNS). For older
// Nodes this preload (NODE_OPTIONS=--require) routes fetch through undici's EnvHttpProxyAgent,
// the agent Node itself uses for the variable, from the server's own undici bound read-only.
// undici is loaded on the first fetch, so node processes that never fetch pay nothing.

/** Where the preload and the server's undici are bound inside the sandbox. */
export const NODE_PRELOAD = "/run/tandem/node-env-proxy.cjs";
export const UNDICI_MOUNT = "/run/tandem/undici";

/** The server's undici package folder (the sandbox binds it at UNDICI_MOUNT). */
export const UNDICI_DIR = path.dirname(createRequire(import.meta.url).resolve("undici/package.json"));

export const NODE_PRELOAD_SCRIPT = `"use strict";
const [major, minor] = process.versions.node.split(".").map(Number);
const honoured = major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
if (!honoured && typeof globalThis.fetch === "function") {
  const fetch = globalThis.fetch;
  let routed = false;
  globalThis.fetch = function (...args) {
    if (!routed) {
      routed = true;
      // A Node too old for this undici keeps its fetch as it was: nothing else can be done for it.
      try {
        const undici = require(${JSON.stringify(UNDICI_MOUNT)});
        undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent());
      } catch {}
    }
    return fetch.apply(this, args);
  };
}
`;
