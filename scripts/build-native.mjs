// Builds the server's native modules (server/sandbox/native: descriptor passing for the egress
// proxy, the preview's WebSocket relay and front, openat2 for the workspace, the Landlock launcher of ripgrep) with node-gyp, when a build is
// missing or older than its sources. Run by `npm install` (postinstall), `npm start` and
// `npm test`; a no-op when the build is current.
// Linux only: the sandbox (bubblewrap) exists only there.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const dir = path.join(root, "server/sandbox/native");
const outputs = ["fd_relay.node", "socket_relay.node", "preview_front.node", "beneath.node", "rg-confined"].map(
  (name) => path.join(dir, "build/Release", name),
);
const sources = [
  "fd-relay.c",
  "socket-relay.c",
  "preview-front.c",
  "relay-thread.h",
  "beneath.c",
  "rg-confined.c",
  "binding.gyp",
].map((name) => path.join(dir, name));

if (process.platform !== "linux") process.exit(0);
const builtAt = Math.min(...outputs.map((output) => (existsSync(output) ? statSync(output).mtimeMs : 0)));
if (sources.every((source) => statSync(source).mtimeMs <= builtAt)) process.exit(0);

// npm tells its scripts where its node-gyp is; outside npm, the copy npm ships beside node.
const prefix = path.resolve(path.dirname(process.execPath), "..");
const gyp = [
  process.env.npm_config_node_gyp,
  path.join(prefix, "lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"),
].find((file) => file && existsSync(file));
if (!gyp) {
  console.error("tandem: cannot build the server's native modules: node-gyp (shipped with npm) was not found.");
  process.exit(1);
}
// Node's own headers when they are installed beside it (Debian's nodejs, the official tarballs):
// node-gyp would otherwise download them, and this machine may have no network.
const args = [gyp, "rebuild", "--loglevel=warn"];
if (!process.env.npm_config_nodedir && existsSync(path.join(prefix, "include/node/node_api.h")))
  args.push(`--nodedir=${prefix}`);
const result = spawnSync(process.execPath, args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
if (result.status !== 0) {
  console.error(
    "tandem: building the server's native modules failed (it needs make and a C compiler, as node-pty does).",
  );
  process.exit(result.status ?? 1);
}
