import fs from "node:fs/promises";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentVersionFromConflict, type FileChange } from "@/lib/fs-schemas";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createTestServices } from "@/server/test/services";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let caller: ReturnType<typeof createCaller>;
let projectId: string;
let root: string;
let ownerUser: Awaited<ReturnType<typeof env.createUser>>;

beforeAll(async () => {
  env = await createTestServices();
  ownerUser = await env.createUser();
  caller = createCaller(env.context(ownerUser));
  projectId = (await caller.project.create({ name: "Files" })).id;
  root = env.services.files.pathOf(projectId);
});
afterAll(() => env.dispose());

async function trpcError(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe("fs router", () => {
  it("creates, reads, writes and reports a stale write as CONFLICT with the current version", async () => {
    const { version: v1 } = await caller.fs.create({
      projectId,
      path: "src/a.ts",
      content: "one\r\n",
      createParents: true,
    });
    const file = await caller.fs.read({ projectId, path: "src/a.ts" });
    expect(file).toMatchObject({ kind: "text", content: "one\r\n", eol: "\r\n", version: v1 });
    const { version: v2 } = await caller.fs.write({
      projectId,
      path: "src/a.ts",
      content: "two\n",
      expectedVersion: v1,
    });
    const conflict = await trpcError(
      caller.fs.write({ projectId, path: "src/a.ts", content: "stale", expectedVersion: v1 }),
    );
    expect(conflict.code).toBe("CONFLICT");
    expect(currentVersionFromConflict(conflict.message)).toBe(v2);
    expect(await fs.readFile(path.join(root, "src/a.ts"), "utf8")).toBe("two\r\n");
  });

  it("maps workspace refusals to tRPC codes and keeps the message", async () => {
    const outside = await trpcError(caller.fs.read({ projectId, path: "../../etc/passwd" }));
    expect(outside.code).toBe("BAD_REQUEST");
    expect(outside.message).toMatch(/workspace root/);
    expect((await trpcError(caller.fs.read({ projectId, path: "missing.ts" }))).code).toBe("NOT_FOUND");
    await caller.fs.mkdir({ projectId, path: "dir" });
    expect((await trpcError(caller.fs.mkdir({ projectId, path: "dir" }))).code).toBe("CONFLICT");
    expect((await trpcError(caller.fs.delete({ projectId, path: "" }))).code).toBe("BAD_REQUEST");
  });

  it("lists a folder, hiding ignored entries on request, and renames and deletes", async () => {
    await caller.fs.create({ projectId, path: ".gitignore", content: "*.log\n" });
    await caller.fs.create({ projectId, path: "debug.log" });
    const all = await caller.fs.tree({ projectId });
    expect(all.find((e) => e.name === "debug.log")?.ignored).toBe(true);
    const shown = await caller.fs.tree({ projectId, showIgnored: false });
    expect(shown.map((e) => e.name)).not.toContain("debug.log");
    await caller.fs.rename({ projectId, from: "debug.log", to: "logs/debug.log", createParents: true });
    expect((await caller.fs.tree({ projectId, path: "logs" })).map((e) => e.path)).toEqual(["logs/debug.log"]);
    await caller.fs.delete({ projectId, path: "logs" });
    expect((await caller.fs.tree({ projectId })).map((e) => e.name)).not.toContain("logs");
  });

  it("lists every file for quick open, without ignored ones, .git, or anything behind a symlink out of the workspace", async () => {
    const project = (await caller.project.create({ name: "Quick open" })).id;
    const dir = env.services.files.pathOf(project);
    await caller.fs.create({ projectId: project, path: ".gitignore", content: "dist/\n" });
    await caller.fs.create({ projectId: project, path: "src/app/main.ts", createParents: true });
    await caller.fs.create({ projectId: project, path: "dist/bundle.js", createParents: true });
    await caller.fs.create({ projectId: project, path: ".tandem/agents/reviewer.md", createParents: true });
    await fs.mkdir(path.join(dir, ".git"));
    await fs.writeFile(path.join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    await fs.symlink("/etc", path.join(dir, "etc-link"));
    expect(await caller.fs.files({ projectId: project })).toEqual({
      files: [".gitignore", ".tandem/agents/reviewer.md", "src/app/main.ts"],
      truncated: false,
    });
  });

  it("streams changes until the subscription's signal is aborted", async () => {
    const controller = new AbortController();
    const stranger = createCaller(env.context(await env.createUser()), { signal: controller.signal });
    expect((await trpcError(stranger.fs.changes({ projectId }))).code).toBe("NOT_FOUND");

    const owner = createCaller(env.context(ownerUser), { signal: controller.signal });
    const changes = (await owner.fs.changes({ projectId })) as AsyncIterable<FileChange>;
    const iterator = changes[Symbol.asyncIterator]();
    const first = iterator.next();
    // The watcher is ready once its first scan ends; keep touching the file until a change shows up.
    const touching = setInterval(() => void fs.writeFile(path.join(root, "watched.txt"), String(Date.now())), 100);
    try {
      const { value } = await first;
      expect(value).toMatchObject({ path: "watched.txt" });
    } finally {
      clearInterval(touching);
    }
    controller.abort();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});
