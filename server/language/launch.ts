import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sandboxCommand, type SandboxedCommand } from "@/server/sandbox/launcher";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { closeQuietly, openRoot, statAtSync } from "@/server/workspace/beneath";
import { SERVER_PACKAGES_DIR, type LanguageServerSpec } from "./registry";

// How a language server is started: inside the project's sandbox with no network, seeing of the
// server's own install only the packages it runs from (each bound read-only under
// SERVER_PACKAGES_DIR, where Node's resolution finds them as siblings), never all of node_modules.

const require = createRequire(import.meta.url);

type PackageDir = { name: string; dir: string };

function packageDir(name: string, from: string): string | undefined {
  try {
    return path.dirname(realpathSync(require.resolve(`${name}/package.json`, { paths: [from] })));
  } catch {
    // Packages whose exports map hides package.json: walk up from their main entry.
    try {
      let dir = path.dirname(realpathSync(require.resolve(name, { paths: [from] })));
      while (!existsSync(path.join(dir, "package.json")) && dir !== path.dirname(dir)) dir = path.dirname(dir);
      return dir;
    } catch {
      return undefined;
    }
  }
}

const closures = new Map<string, PackageDir[]>();

/** The package and everything it depends on, each once (the first version resolution finds). */
export function packageClosure(names: readonly string[], from = process.cwd()): PackageDir[] {
  const key = `${from}\0${names.join(",")}`;
  const cached = closures.get(key);
  if (cached) return cached;
  const found = new Map<string, PackageDir>();
  const visit = (name: string, parent: string) => {
    if (found.has(name)) return;
    const dir = packageDir(name, parent);
    if (!dir) return; // an optional dependency that is not installed
    found.set(name, { name, dir });
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, dir);
  };
  for (const name of names) visit(name, from);
  const closure = [...found.values()];
  closures.set(key, closure);
  return closure;
}

/** An npm package's name, plain or scoped: no `..`, no leading dot, one folder below node_modules (or two, scoped). */
const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/**
 * The workspace's own node_modules/NAME when it has one (a regular package.json in it), else null.
 * The name comes from a project admin's plugin and the lookup runs as root, so it is looked up
 * beneath the workspace (links inside followed, none out: RESOLVE_BENEATH) and a name that is not
 * one package is refused: otherwise a climb or a link made the answer say whether a host file exists.
 */
function ownPackage(workspaceRoot: string, name: string): string | null {
  if (!PACKAGE_NAME.test(name)) return null;
  let rootFd: number;
  try {
    rootFd = openRoot(workspaceRoot);
  } catch {
    return null;
  }
  try {
    const manifest = statAtSync(rootFd, `node_modules/${name}/package.json`);
    return manifest?.isFile() ? path.join(workspaceRoot, "node_modules", name) : null;
  } finally {
    closeQuietly(rootFd);
  }
}

export type LaunchOptions = {
  spec: LanguageServerSpec;
  workspaceRoot: string;
  sandbox: Sandbox;
  memoryMb: number;
};

export type Launch = { command: SandboxedCommand; initializationOptions: unknown };

/** The sandboxed command line and initialization options, placeholders filled in. */
export function launchCommand({ spec, workspaceRoot, sandbox, memoryMb }: LaunchOptions): Launch {
  const closure = packageClosure(spec.packages);
  const inside = (name: string) => {
    const found = closure.find((p) => p.name === name);
    if (!found) throw new Error(`The language server package '${name}' is not installed. Run npm install.`);
    return sandbox.mode === "bwrap" ? `${SERVER_PACKAGES_DIR}/${name}` : found.dir;
  };
  const fill = (text: string) =>
    text
      .replaceAll("{memoryMb}", String(memoryMb))
      .replace(/\{package:([^}]+)\}/g, (_, name: string) => inside(name))
      .replace(/\{workspaceOr:([^}]+)\}/g, (_, name: string) => ownPackage(workspaceRoot, name) ?? inside(name));
  const fillAll = (value: unknown): unknown => {
    if (typeof value === "string") return /^\{memoryMb\}$/.test(value) ? memoryMb : fill(value);
    if (Array.isArray(value)) return value.map(fillAll);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillAll(v)]));
    return value;
  };
  const argv = spec.command.map(fill);
  const node = process.execPath;
  if (argv[0] === "node") argv[0] = node;
  const readOnlyBinds = closure.map((p) => ({ from: p.dir, to: `${SERVER_PACKAGES_DIR}/${p.name}` }));
  // A Node installed outside /usr (nvm, a tarball) must be visible too; /usr is always bound.
  if (!node.startsWith("/usr/"))
    readOnlyBinds.push({ from: path.dirname(path.dirname(node)), to: path.dirname(path.dirname(node)) });
  // No egress socket: a language server never gets network, whatever the project's policy. Its
  // analysis runs in the background: the page and the server's requests go first.
  const command = sandboxCommand(sandbox.host, {
    workspaceRoot,
    command: argv,
    newSession: true,
    readOnlyBinds,
    background: true,
  });
  return { command, initializationOptions: fillAll(spec.initializationOptions ?? {}) };
}
