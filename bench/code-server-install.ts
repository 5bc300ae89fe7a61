// Installs code-server, the reference of bench/code-server.ts, from the npm registry alone into a
// cache folder, once. Its own postinstall cannot run on a machine whose only network is the
// registry: it builds modules Code's terminal does not need (kerberos wants the krb5 headers) and
// downloads ripgrep from GitHub. So this installs its packages without scripts, then builds from
// source just the native modules that the server and its terminal load, and gives it a copy of our ripgrep.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

export const CODE_SERVER_VERSION = "4.100.3";

const require = createRequire(import.meta.url);
/**
 * The Node that code-server runs on and its native modules are built for: the one running npm (the
 * machine's; code-server 4.100 is made for Node 20 and 22), not Tandem's own Node 24 from
 * node_modules, which runs this script under `npm run`.
 */
export const CODE_SERVER_NODE = process.env.npm_node_execpath ?? process.execPath;
/** node-gyp as npm carries it: what `npm rebuild` would call, without the scripts that need GitHub. */
function nodeGyp(): string {
  const besideNode = path.join(
    path.dirname(path.dirname(CODE_SERVER_NODE)),
    "lib",
    "node_modules",
    "npm",
    "node_modules",
    "node-gyp",
    "bin",
    "node-gyp.js",
  );
  const found = [process.env.npm_config_node_gyp, besideNode].find((file) => file && existsSync(file));
  if (!found)
    throw new Error("node-gyp (shipped with npm) was not found: run this through `npm run bench:code-server`");
  return found;
}

/** Where the package is unpacked (with its `out/node/entry.js`); CODE_SERVER_DIR names one by hand. */
export function codeServerDir(): string {
  return (
    process.env.CODE_SERVER_DIR ??
    path.join(os.homedir(), ".cache", "tandem-bench", `code-server-${CODE_SERVER_VERSION}`, "package")
  );
}

/** Whether ensureCodeServer has installed it already (or CODE_SERVER_DIR names a copy). */
export function codeServerInstalled(): boolean {
  return !!process.env.CODE_SERVER_DIR || existsSync(path.join(codeServerDir(), ".tandem-bench-installed"));
}

export function ensureCodeServer(log: (line: string) => void): string {
  const dir = codeServerDir();
  if (process.env.CODE_SERVER_DIR) return dir;
  const done = path.join(dir, ".tandem-bench-installed");
  const vscode = path.join(dir, "lib", "vscode");
  if (existsSync(done)) {
    placeRipgrep(vscode);
    return dir;
  }
  const parent = path.dirname(dir);
  log(`installing code-server ${CODE_SERVER_VERSION} into ${parent} (once; a few minutes)`);
  rmSync(parent, { recursive: true, force: true });
  mkdirSync(parent, { recursive: true });
  const run = (cwd: string, command: string, args: string[]) =>
    execFileSync(command, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
  run(parent, "npm", ["pack", `code-server@${CODE_SERVER_VERSION}`, "--silent"]);
  run(parent, "tar", ["xzf", `code-server-${CODE_SERVER_VERSION}.tgz`]);
  for (const cwd of [dir, vscode, path.join(vscode, "extensions")])
    run(cwd, "npm", ["install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"]);
  // argon2 (code-server's password check, loaded at start) builds from source once its prebuilt download fails.
  run(dir, "npm", ["rebuild", "argon2", "--silent"]);
  // Node's own headers when they are installed beside it (Debian's nodejs, the official tarballs):
  // node-gyp would otherwise download them.
  const prefix = path.dirname(path.dirname(CODE_SERVER_NODE));
  const nodedir = existsSync(path.join(prefix, "include", "node", "node_api.h")) ? [`--nodedir=${prefix}`] : [];
  for (const module of ["node-pty", "@vscode/spdlog", "native-watchdog"]) {
    run(path.join(vscode, "node_modules", module), CODE_SERVER_NODE, [nodeGyp(), "rebuild", ...nodedir]);
  }
  placeRipgrep(vscode);
  // Code looks for its bundled modules in node_modules.asar, which its postinstall links.
  symlinkSync("node_modules", path.join(vscode, "node_modules.asar"));
  execFileSync("touch", [done]);
  return dir;
}

/**
 * code-server's ripgrep (its quick open and find in files run it): a copy of ours. It was a link to
 * the checkout that installed it, and once that checkout was deleted code-server found no file and
 * no match, silently (bench:monorepo waited for its quick open until it timed out). Put back when
 * missing.
 */
function placeRipgrep(vscode: string): void {
  const rg = path.join(vscode, "node_modules", "@vscode", "ripgrep", "bin", "rg");
  if (existsSync(rg)) return; // false for a link whose target is gone
  mkdirSync(path.dirname(rg), { recursive: true });
  rmSync(rg, { force: true });
  copyFileSync(require("@vscode/ripgrep").rgPath as string, rg);
  chmodSync(rg, 0o755);
}
