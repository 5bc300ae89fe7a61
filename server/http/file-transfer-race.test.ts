import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import yauzl from "yauzl";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { startServer, type RunningServer } from "@/server/start-server";
import { swapWithLink } from "@/server/test/swap-with-link";
import { canSwapLinks } from "@/server/test/temp-dirs";
import { createTestServices } from "@/server/test/services";

// Issue 38, defect 2, through the HTTP routes: while a process of the project swaps the folder `d`
// with a link to a root-only folder outside the workspace (renameat2 RENAME_EXCHANGE, in a loop),
// downloads must never return a byte of what is outside, and uploads must never create, replace
// or remove anything there. Each attack is bounded: ROUNDS requests or SECONDS, whichever ends first.

const SECRET = "host secret 7f3a";
const ROUNDS = 150;
const SECONDS = 12;

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let projectId: string;
let root: string;
let outside: string;
let cookie: string;
let swapper: { stop(): Promise<number> } | undefined;

const outsideState = async () => {
  const names = (await readdir(outside, { recursive: true })).map(String).sort();
  return Promise.all(
    names.map(async (name) => [name, await readFile(path.join(outside, name), "utf8").catch(() => "(folder)")]),
  );
};

async function upload(parts: { path: string; data: string }[], query: string) {
  const body = new FormData();
  for (const part of parts) {
    body.append("path", part.path);
    body.append("file", new Blob([part.data]), part.path.split("/").pop());
  }
  const response = await fetch(`${base}/api/projects/${projectId}/upload${query}`, {
    method: "POST",
    body,
    headers: { origin: base, cookie },
  });
  await response.arrayBuffer();
  return response.status;
}

/** The bytes that came (a zip refused half-way is cut off: what came before still counts). */
async function download(filePath: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  try {
    const response = await fetch(`${base}/api/projects/${projectId}/download?path=${encodeURIComponent(filePath)}`, {
      headers: { cookie },
    });
    const reader = response.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  } catch {
    // cut off
  }
  return Buffer.concat(chunks);
}

async function zipTexts(bytes: Buffer): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true }).catch(() => null);
  if (!zip) return [];
  const texts: string[] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    texts.push(`${entry.fileName}: ${Buffer.concat(chunks).toString()}`);
  }
  return texts;
}

beforeAll(async () => {
  env = await createTestServices();
  const services = {
    ...env.services,
    config: { ...env.services.config, host: "127.0.0.1", port: 0, upload: { maxBytes: 1024 * 1024, maxFiles: 50 } },
  };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const response = await env.services.auth.api.signUpEmail({
    body: { name: "Olive", email: `olive-${Date.now()}@example.com`, password: "correct-horse-battery" },
    asResponse: true,
  });
  const { user } = (await response.json()) as { user: { id: string } };
  cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const caller = createCallerFactory(appRouter)(env.context((await findUser(env.services.db, user.id))!));
  projectId = (await caller.project.create({ name: "Race" })).id;
  root = env.services.files.pathOf(projectId);
}, 60_000);

beforeEach(async () => {
  await rm(path.join(root, "d"), { recursive: true, force: true });
  await mkdir(path.join(root, "d/sub"), { recursive: true });
  await writeFile(path.join(root, "d/f.txt"), "inside\n");
  await writeFile(path.join(root, "d/sub/g.txt"), "inside too\n");
  outside = await mkdtemp(path.join(os.tmpdir(), "tandem-root-only-"));
  await chmod(outside, 0o700);
  await mkdir(path.join(outside, "sub"));
  await writeFile(path.join(outside, "f.txt"), SECRET);
  await writeFile(path.join(outside, "sub/g.txt"), SECRET);
  swapper = await swapWithLink(root, "d", outside);
});

afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
  await rm(outside, { recursive: true, force: true });
});

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe.runIf(canSwapLinks)("a folder swapped for a link to a root-only folder, in a loop, during transfers", () => {
  it("a file download never returns the file outside", async () => {
    const leaked: number[] = [];
    for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS && Date.now() < until; i++) {
      if ((await download("d/f.txt")).toString().includes(SECRET)) leaked.push(i);
    }
    const swaps = await swapper!.stop();
    expect(swaps).toBeGreaterThan(ROUNDS);
    expect(leaked, `leaked at request ${leaked[0]}`).toEqual([]);
  }, 60_000);

  it("a folder's zip never holds a file outside", async () => {
    const leaked: number[] = [];
    for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS / 3 && Date.now() < until; i++) {
      const texts = [...(await zipTexts(await download("d"))), ...(await zipTexts(await download("")))];
      if (texts.some((text) => text.includes(SECRET))) leaked.push(i);
    }
    await swapper!.stop();
    expect(leaked, `leaked at request ${leaked[0]}`).toEqual([]);
  }, 60_000);

  it("file uploads (new, replacing, into the folder) never write outside", async () => {
    const before = await outsideState();
    for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS && Date.now() < until; i++) {
      await upload([{ path: `d/new-${i}.txt`, data: "pwned" }], "?onExists=keep-both");
      await upload([{ path: "d/f.txt", data: "pwned" }], "?onExists=replace");
      await upload([{ path: `in-dir-${i}.txt`, data: "pwned" }], "?dir=d/sub");
    }
    await swapper!.stop();
    expect(await outsideState()).toEqual(before);
  }, 60_000);

  it("a folder upload never puts its files outside", async () => {
    const before = await outsideState();
    for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS / 5 && Date.now() < until; i++) {
      const parts = Array.from({ length: 20 }, (_, n) => ({
        path: `d/up-${i}/sub-${n % 4}/file-${n}.txt`,
        data: "pwned",
      }));
      await upload([...parts, { path: "d/sub/g.txt", data: "pwned" }], "?onExists=replace");
    }
    await swapper!.stop();
    expect(await outsideState()).toEqual(before);
  }, 60_000);
});
