import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import yauzl from "yauzl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { setSetting } from "@/server/db/repositories/settings";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { startServer, type RunningServer } from "@/server/start-server";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { rawZip } from "@/server/test/zip-bytes";

// Uploads and downloads through a real server: who may (the HTTP side of the authorization
// matrix), what lands where, and what an attacker's paths and archives cannot do.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let projectId: string;
let root: string;
let outside: string;
const cookies: Record<string, string> = {};
const LIMIT = 64 * 1024;

const signUp = (name: string) => signUpPerson(env.services, name);

type Part = { path: string; data: string | Buffer };
function form(parts: Part[]): FormData {
  const body = new FormData();
  for (const part of parts) {
    body.append("path", part.path);
    body.append(
      "file",
      new Blob([typeof part.data === "string" ? part.data : new Uint8Array(part.data)]),
      part.path.split("/").pop(),
    );
  }
  return body;
}

async function upload(who: string | null, parts: Part[], query = "", project = projectId) {
  const response = await fetch(`${base}/api/projects/${project}/upload${query}`, {
    method: "POST",
    body: form(parts),
    headers: { origin: base, ...(who ? { cookie: cookies[who]! } : {}) },
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      files?: { path: string }[];
      errors?: { path: string; message: string }[];
      error?: string;
    },
  };
}

async function download(who: string | null, filePath = "") {
  const response = await fetch(`${base}/api/projects/${projectId}/download?path=${encodeURIComponent(filePath)}`, {
    headers: who ? { cookie: cookies[who]! } : {},
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    disposition: response.headers.get("content-disposition"),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

async function zipEntries(bytes: Buffer): Promise<Record<string, string>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out[entry.fileName] = Buffer.concat(chunks).toString();
  }
  return out;
}

const list = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true })).map(String).sort();

beforeAll(async () => {
  env = await createTestServices();
  const services = {
    ...env.services,
    config: { ...env.services.config, host: "127.0.0.1", port: 0, upload: { maxBytes: LIMIT, maxFiles: 50 } },
  };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const owner = await signUp("Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const member = await signUp("Milo");
  const viewer = await signUp("Vera");
  const stranger = await signUp("Sam");
  Object.assign(cookies, {
    owner: owner.cookie,
    member: member.cookie,
    viewer: viewer.cookie,
    stranger: stranger.cookie,
  });
  const team = await createTeam(env.services.db, { name: "Acme", ownerId: owner.id });
  await addMember(env.services.db, team.id, member.id, "member");
  await addMember(env.services.db, team.id, viewer.id, "viewer");
  const caller = createCallerFactory(appRouter)(env.context((await findUser(env.services.db, owner.id))!));
  projectId = (await caller.project.create({ name: "Transfers", teamId: team.id })).id;
  root = env.services.files.pathOf(projectId);
  outside = await mkdtemp(path.join(os.tmpdir(), "tandem-outside-"));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
  await rm(outside, { recursive: true, force: true });
});

describe("authorization (the HTTP routes' row of the matrix)", () => {
  it("lets members upload, viewers only download, and nobody else either", async () => {
    await writeFile(path.join(root, "readme.md"), "# hi\n");
    expect((await upload(null, [{ path: "x.txt", data: "x" }])).status).toBe(401);
    expect((await upload("stranger", [{ path: "x.txt", data: "x" }])).status).toBe(404);
    expect((await upload("viewer", [{ path: "x.txt", data: "x" }])).status).toBe(403);
    expect((await upload("member", [{ path: "x.txt", data: "x" }])).status).toBe(200);
    expect((await download(null, "readme.md")).status).toBe(401);
    expect((await download("stranger", "readme.md")).status).toBe(404);
    expect((await download("viewer", "readme.md")).bytes.toString()).toBe("# hi\n");
    const shareOnly = await fetch(`${base}/api/projects/${projectId}/download?path=readme.md`, {
      headers: { "x-tandem-share": "x".repeat(43) },
    });
    expect(shareOnly.status).toBe(401);
    const crossSite = await fetch(`${base}/api/projects/${projectId}/upload`, {
      method: "POST",
      body: form([{ path: "y.txt", data: "y" }]),
      headers: { cookie: cookies.member!, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    await expect(readFile(path.join(root, "y.txt"))).rejects.toThrow();
  });
});

describe("upload", () => {
  it("keeps a dropped folder's structure, and on a taken name refuses, replaces or keeps both", async () => {
    const first = await upload("member", [
      { path: "site/index.html", data: "<h1>1</h1>" },
      { path: "site/css/app.css", data: "body{}" },
      { path: "notes.txt", data: "one" },
    ]);
    expect(first).toMatchObject({
      status: 200,
      body: { files: [{ path: "site/index.html" }, { path: "site/css/app.css" }, { path: "notes.txt" }] },
    });
    expect(await readFile(path.join(root, "site/css/app.css"), "utf8")).toBe("body{}");

    const refused = await upload("member", [{ path: "notes.txt", data: "two" }]);
    expect(refused.status).toBe(409);
    expect(refused.body.errors?.[0]?.message).toMatch(/already exists/);
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("one");

    expect((await upload("member", [{ path: "notes.txt", data: "two" }], "?onExists=replace")).status).toBe(200);
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("two");

    const both = await upload(
      "member",
      [
        { path: "notes.txt", data: "three" },
        { path: "site/index.html", data: "<h1>2</h1>" },
      ],
      "?onExists=keep-both",
    );
    expect(both.body.files?.map((f) => f.path)).toEqual(["notes (1).txt", "site (1)/index.html"]);
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("two");
    expect(await readFile(path.join(root, "site (1)/index.html"), "utf8")).toBe("<h1>2</h1>");

    expect((await upload("member", [{ path: "deep.txt", data: "d" }], "?dir=site/css")).body.files?.[0]?.path).toBe(
      "site/css/deep.txt",
    );
  });

  it("refuses paths that climb out, absolute paths and symbolic links leading outside; nothing is written there", async () => {
    await symlink(outside, path.join(root, "escape"));
    for (const attack of ["../evil.txt", "a/../../evil.txt", "/tmp/evil.txt", "C:/evil.txt", "a\\..\\..\\evil.txt"]) {
      const result = await upload("member", [{ path: attack, data: "pwned" }]);
      expect(result.status, attack).toBe(400);
    }
    const linked = await upload("member", [{ path: "escape/evil.txt", data: "pwned" }]);
    expect(linked.status).toBe(409);
    expect(linked.body.errors?.[0]?.message).toMatch(/outside the workspace/);
    expect((await upload("member", [{ path: "x.txt", data: "x" }], "?dir=../..")).status).toBe(400);
    expect((await upload("member", [{ path: "x.txt", data: "x" }], "?dir=escape")).status).toBe(400);
    expect(await list(outside)).toEqual([]);
    expect(await readFile(path.join(path.dirname(root), "evil.txt")).catch(() => null)).toBeNull();
  });

  it("enforces the size limit while streaming, without a declared length too, and leaves no partial file", async () => {
    const big = Buffer.alloc(LIMIT + 1, 97);
    expect((await upload("member", [{ path: "big.bin", data: big }])).status).toBe(413);
    const chunked = await new Promise<number>((resolve, reject) => {
      const boundary = "----tandem";
      const request = http.request(
        `${base}/api/projects/${projectId}/upload`,
        {
          method: "POST",
          headers: {
            cookie: cookies.member,
            origin: base,
            "content-type": `multipart/form-data; boundary=${boundary}`,
            "transfer-encoding": "chunked",
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on("error", reject);
      request.write(
        `--${boundary}\r\ncontent-disposition: form-data; name="path"\r\n\r\nstream.bin\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="stream.bin"\r\n\r\n`,
      );
      for (let i = 0; i < 20; i++) request.write(Buffer.alloc(8 * 1024, 98));
      request.end(`\r\n--${boundary}--\r\n`);
    });
    expect(chunked).toBe(413);
    const names = await list(root);
    expect(names.filter((n) => /big|stream|\.tmp$/.test(n))).toEqual([]);
  });

  it("unpacks a zip (its one top folder dropped), and refuses zip-slip, links and too many entries before writing anything", async () => {
    const good = rawZip([
      { name: "repo-main/src/app.ts", data: "export {};\n" },
      { name: "repo-main/README.md", data: "# repo\n" },
    ]);
    const unpacked = await upload("member", [{ path: "repo.zip", data: good }], "?onExists=replace&unzip=1");
    expect(unpacked.status).toBe(200);
    expect(await readFile(path.join(root, "src/app.ts"), "utf8")).toBe("export {};\n");

    const before = await list(root);
    const attacks: Array<[string, Buffer]> = [
      [
        "zip-slip",
        rawZip([
          { name: "ok.txt", data: "fine" },
          { name: "../../evil.txt", data: "pwned" },
        ]),
      ],
      [
        "absolute",
        rawZip([
          { name: "ok.txt", data: "fine" },
          { name: "/tmp/evil.txt", data: "pwned" },
        ]),
      ],
      [
        "symlink",
        rawZip([
          { name: "ok.txt", data: "fine" },
          { name: "link", data: outside, mode: 0o120777 },
        ]),
      ],
      ["too many", rawZip(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}.txt`, data: "x" })))],
      [
        "too big",
        rawZip([
          { name: "ok.txt", data: "fine" },
          { name: "huge.txt", data: "y".repeat(LIMIT) },
        ]),
      ],
    ];
    for (const [what, bytes] of attacks) {
      const result = await upload("member", [{ path: "attack.zip", data: bytes }], "?unzip=1");
      expect(result.status, what).toBeGreaterThanOrEqual(400);
      expect(result.body.error, what).toBeTruthy();
    }
    expect(await list(root)).toEqual(before);
    expect(await list(outside)).toEqual([]);
  });
});

describe("upload into a git repository", () => {
  // A browser sends no file modes: a repository uploaded with its .git (or a script uploaded into
  // one) must not lose the executable bits its index records, or git shows every script changed.
  let scripts: string;
  let scriptsRoot: string;
  const git = (...args: string[]) => {
    const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: scriptsRoot,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(result.stderr);
    return result.stdout;
  };
  const mode = async (file: string) => (await stat(file)).mode & 0o777;

  beforeAll(async () => {
    const owner = (await env.services.db.user.findFirstOrThrow({ where: { name: "Olive" } })).id;
    const caller = createCallerFactory(appRouter)(env.context((await findUser(env.services.db, owner))!));
    const teamId = (await env.services.db.project.findUniqueOrThrow({ where: { id: projectId } })).teamId;
    scripts = (await caller.project.create({ name: "Scripts", teamId })).id;
    scriptsRoot = env.services.files.pathOf(scripts);
    await writeFile(path.join(scriptsRoot, "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o755 });
    await writeFile(path.join(scriptsRoot, "tool.sh"), "#!/bin/sh\n", { mode: 0o755 });
    await writeFile(path.join(scriptsRoot, "README.md"), "# scripts\n");
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "init");
  }, 60_000);

  it("gives back the executable bit the index records, to the files uploaded or, with the index, to all", async () => {
    // A whole repository uploaded: its scripts arrive without the bit, and the index with them.
    await chmod(path.join(scriptsRoot, "run.sh"), 0o644);
    await chmod(path.join(scriptsRoot, "tool.sh"), 0o644);
    const index = await readFile(path.join(scriptsRoot, ".git/index"));
    const whole = await upload(
      "member",
      [
        { path: "run.sh", data: "#!/bin/sh\necho run\n" },
        { path: ".git/index", data: index },
      ],
      "?onExists=replace",
      scripts,
    );
    expect(whole.status).toBe(200);
    expect((await mode(path.join(scriptsRoot, "run.sh"))) & 0o111).toBe(0o111);
    expect((await mode(path.join(scriptsRoot, "tool.sh"))) & 0o111).toBe(0o111);
    expect(git("status", "--porcelain")).toBe("");
    // One script uploaded again (a new file, so no bit): it gets its bit; a file git keeps plain does not.
    await upload(
      "member",
      [
        { path: "tool.sh", data: "#!/bin/sh\n" },
        { path: "README.md", data: "# scripts\n" },
      ],
      "?onExists=replace",
      scripts,
    );
    expect((await mode(path.join(scriptsRoot, "tool.sh"))) & 0o111).toBe(0o111);
    expect((await mode(path.join(scriptsRoot, "README.md"))) & 0o111).toBe(0);
    expect(git("status", "--porcelain")).toBe("");
  });

  it("never makes executable what a link at a script's path leads to, nor opens a FIFO there, even while they are swapped", async () => {
    const target = path.join(outside, "victim.sh");
    await writeFile(target, "#!/bin/sh\n", { mode: 0o644 });
    const index = await readFile(path.join(scriptsRoot, ".git/index"));
    const run = path.join(scriptsRoot, "run.sh");
    const tool = path.join(scriptsRoot, "tool.sh");
    await unlink(tool);
    spawnSync("mkfifo", [tool]);
    // run.sh is a link to a script outside the workspace.
    await rm(run, { force: true });
    await symlink(target, run);
    expect((await upload("member", [{ path: ".git/index", data: index }], "?onExists=replace", scripts)).status).toBe(
      200,
    );
    expect(await mode(target)).toBe(0o644);
    // A member's process swaps run.sh between a file and a link to outside as fast as it can.
    let swapping = true;
    const swapper = (async () => {
      while (swapping) {
        await rm(run, { force: true });
        await symlink(target, run);
        await rm(run, { force: true });
        await writeFile(run, "#!/bin/sh\n", { mode: 0o644 });
      }
    })();
    try {
      for (let round = 0; round < 15; round++) {
        const result = await upload("member", [{ path: ".git/index", data: index }], "?onExists=replace", scripts);
        expect(result.status, `round ${round}`).toBe(200);
        expect(await mode(target), `round ${round}`).toBe(0o644);
      }
    } finally {
      swapping = false;
      await swapper;
    }
    expect(await mode(target)).toBe(0o644);
    // The FIFO was left as it was: not opened (the upload would hang), not made executable.
    expect((await stat(tool)).isFIFO()).toBe(true);
    await rm(tool);
    await writeFile(tool, "#!/bin/sh\n", { mode: 0o755 });
    await rm(run, { force: true });
    await writeFile(run, "#!/bin/sh\necho run\n", { mode: 0o755 });
  });

  it("unpacks a zip made on Unix with its scripts executable, and nothing else", async () => {
    const zip = rawZip([
      { name: "pkg/bin/cli", data: "#!/bin/sh\n", mode: 0o100755 },
      { name: "pkg/lib.js", data: "export {};\n", mode: 0o100644 },
    ]);
    expect((await upload("member", [{ path: "pkg.zip", data: zip }], "?unzip=1&dir=", scripts)).status).toBe(200);
    expect((await mode(path.join(scriptsRoot, "bin/cli"))) & 0o111).toBe(0o111);
    expect((await mode(path.join(scriptsRoot, "lib.js"))) & 0o111).toBe(0);
  });
});

describe("download", () => {
  it("streams the project as a zip without ignored folders, .git or links; an ignored folder asked for by name comes whole", async () => {
    await writeFile(path.join(root, ".gitignore"), "node_modules/\n");
    await mkdir(path.join(root, "node_modules/dep"), { recursive: true });
    await writeFile(path.join(root, "node_modules/dep/index.js"), "module.exports = 1;\n");
    await mkdir(path.join(root, ".git"), { recursive: true });
    await writeFile(path.join(root, ".git/HEAD"), "ref: refs/heads/main\n");
    await writeFile(path.join(outside, "secret.txt"), "server secret");
    await symlink(path.join(outside, "secret.txt"), path.join(root, "secret-link.txt"));

    const whole = await download("viewer");
    expect(whole.type).toBe("application/zip");
    expect(whole.disposition).toContain('filename="Transfers.zip"');
    const entries = await zipEntries(whole.bytes);
    expect(entries["site/css/app.css"]).toBe("body{}");
    expect(entries["readme.md"]).toBe("# hi\n");
    expect(Object.keys(entries).filter((name) => /node_modules|\.git\/|secret|escape/.test(name))).toEqual([]);
    expect(Object.values(entries)).not.toContain("server secret");

    expect(await zipEntries((await download("member", "site")).bytes)).toEqual({
      "index.html": "<h1>1</h1>",
      "css/app.css": "body{}",
      "css/deep.txt": "d",
    });
    expect(await zipEntries((await download("member", "node_modules")).bytes)).toEqual({
      "dep/index.js": "module.exports = 1;\n",
    });
    expect((await download("member", "secret-link.txt")).status).toBe(400);
    expect((await download("member", "../../etc/passwd")).status).toBe(400);
    expect((await download("member", "missing.txt")).status).toBe(404);
  });
});
