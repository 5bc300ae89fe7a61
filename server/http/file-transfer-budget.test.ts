import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { startServer, type RunningServer } from "@/server/start-server";
import { createTestServices } from "@/server/test/services";
import { rawZip } from "@/server/test/zip-bytes";

// Issue 38, 8: uploads kept to the project's disk budget (here 1 MB, measured as in production).
// A project past it refuses every upload with a message that says what to do; one that would take
// it past is refused while it streams, and leaves nothing behind.

const MiB = 1024 * 1024;

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
let projectId: string;
let root: string;
let cookie: string;

async function upload(parts: { path: string; data: string | Buffer }[], query = "") {
  const body = new FormData();
  for (const part of parts) {
    body.append("path", part.path);
    body.append(
      "file",
      new Blob([typeof part.data === "string" ? part.data : new Uint8Array(part.data)]),
      part.path.split("/").pop(),
    );
  }
  const response = await fetch(`${base}/api/projects/${projectId}/upload${query}`, {
    method: "POST",
    body,
    headers: { origin: base, cookie },
  });
  return { status: response.status, body: (await response.json()) as { files?: { path: string }[]; error?: string } };
}

const names = async () => (await readdir(root, { recursive: true })).map(String).sort();

beforeAll(async () => {
  env = await createTestServices({ diskBudgetMiB: 1 });
  const services = {
    ...env.services,
    config: { ...env.services.config, host: "127.0.0.1", port: 0, upload: { maxBytes: 8 * MiB, maxFiles: 50 } },
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
  projectId = (await caller.project.create({ name: "Budget" })).id;
  root = env.services.files.pathOf(projectId);
}, 60_000);

beforeEach(async () => {
  for (const name of await readdir(root)) await rm(path.join(root, name), { recursive: true, force: true });
  // A measurement is at most a check interval (200 ms here) old: let the next one see the change.
  await new Promise((resolve) => setTimeout(resolve, 250));
});

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("uploads and the disk budget", () => {
  it("takes what fits", async () => {
    const result = await upload([{ path: "small.bin", data: Buffer.alloc(200 * 1024, 1) }]);
    expect(result.status).toBe(200);
    expect(await names()).toEqual(["small.bin"]);
  });

  it("refuses a file larger than what is left while it streams, and leaves nothing behind", async () => {
    await writeFile(path.join(root, "kept.bin"), Buffer.alloc(600 * 1024, 1));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const result = await upload([
      { path: "big.bin", data: Buffer.alloc(600 * 1024, 2) },
      { path: "after.txt", data: "never read" },
    ]);
    expect(result.status).toBe(507);
    expect(result.body.error).toMatch(
      /'big\.bin' does not fit in what is left of this project's disk budget of 1 MB \(0\.\d MB left\)\. Delete files or write less/,
    );
    expect(await names()).toEqual(["kept.bin"]);
  });

  it("refuses every upload, and an unpacked zip, once the project is past its budget", async () => {
    // Written by a command in a terminal, past the budget.
    await writeFile(path.join(root, "filled.bin"), Buffer.alloc(MiB + 100 * 1024, 1));
    await new Promise((resolve) => setTimeout(resolve, 250));
    for (const [parts, query] of [
      [[{ path: "one.txt", data: "x" }], ""],
      [
        [
          { path: "src/a.txt", data: "a" },
          { path: "src/b.txt", data: "b" },
        ],
        "?onExists=keep-both",
      ],
      [[{ path: "repo.zip", data: rawZip([{ name: "repo/x.txt", data: "x" }]) }], "?unzip=1"],
    ] as const) {
      const result = await upload([...parts], query);
      expect(result.status).toBe(507);
      expect(result.body.error).toMatch(
        /This project's disk budget of 1 MB is reached, so nothing more can be saved or uploaded here\. Delete files \(in the file tree, or with rm in a terminal\), then try again\./,
      );
    }
    expect(await names()).toEqual(["filled.bin"]);
  });

  it("refuses a zip that would unpack past the budget before writing any of it", async () => {
    const zip = rawZip([
      { name: "a.bin", data: "a".repeat(600 * 1024) },
      { name: "b.bin", data: "b".repeat(600 * 1024) },
    ]);
    const result = await upload([{ path: "two.zip", data: zip }], "?unzip=1");
    expect(result.status).toBe(507);
    expect(result.body.error).toMatch(
      /The zip \(2 files, 1\.2 MB\) does not fit in what is left of this project's disk budget of 1 MB/,
    );
    expect(await names()).toEqual([]);
  });
});
