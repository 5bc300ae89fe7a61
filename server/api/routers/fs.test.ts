import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREVIEW_MAX_BYTES } from "@/lib/first-screen";
import { currentVersionFromConflict, REREAD_ALL, type FileChange } from "@/lib/fs-schemas";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createTestServices } from "@/server/test/services";
import { swapWithLink } from "@/server/test/swap-with-link";
import { until } from "@/server/test/until";

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

/** fs.changes as a server-side caller gets it: tRPC's tracked envelopes as they are, `[id, change]`. */
const changesOf = (stream: AsyncIterable<unknown>) =>
  (stream as AsyncIterable<[string, FileChange]>)[Symbol.asyncIterator]() as AsyncIterableIterator<
    [string, FileChange]
  >;

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

  it("previews a text file as fs.read reads it, and nothing of a binary file or one over the preview's limit", async () => {
    await fs.writeFile(path.join(root, "preview.txt"), "é\r\nsecond line\r\n");
    const read = await caller.fs.read({ projectId, path: "preview.txt" });
    expect(await caller.fs.preview({ projectId, path: "preview.txt" })).toEqual({
      content: read.kind === "text" && read.content,
    });
    await fs.writeFile(path.join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    expect(await caller.fs.preview({ projectId, path: "image.png" })).toBeNull();
    await fs.writeFile(path.join(root, "large.txt"), "x".repeat(PREVIEW_MAX_BYTES + 1));
    expect(await caller.fs.preview({ projectId, path: "large.txt" })).toBeNull();
    expect((await trpcError(caller.fs.preview({ projectId, path: "missing.txt" }))).code).toBe("NOT_FOUND");
  });

  it("previews, as an attacker plants them, only the workspace's own regular files", async () => {
    // A FIFO (it would hold a thread of libuv's pool), a link to it, to a device, to a root-only host file.
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    await fs.symlink("pipe", path.join(root, "to-pipe"));
    await fs.symlink("/dev/zero", path.join(root, "to-zero"));
    await fs.symlink("/etc/shadow", path.join(root, "to-shadow"));
    for (const planted of ["pipe", "to-pipe", "to-zero", "to-shadow", "../../../../etc/shadow", "/etc/shadow"])
      expect((await trpcError(caller.fs.preview({ projectId, path: planted }))).code, planted).toBe("BAD_REQUEST");
    // A file growing while it is read: never more than the limit in memory, nothing of it past the limit.
    await fs.writeFile(path.join(root, "growing.log"), "x".repeat(PREVIEW_MAX_BYTES - 10));
    const writer = spawn("sh", ["-c", `yes | head -c 20000000 >> '${path.join(root, "growing.log")}'`]);
    const writing = new Promise((resolve) => writer.on("close", resolve));
    for (let i = 0; i < 20; i++) {
      const shown = await caller.fs.preview({ projectId, path: "growing.log" });
      expect(shown === null || shown.content.length <= PREVIEW_MAX_BYTES).toBe(true);
    }
    await writing;
    await fs.rm(path.join(root, "growing.log"));
    // A folder traded for a link to the host's /etc in a loop: its file's own text, or a refusal, never the host's.
    await fs.mkdir(path.join(root, "etc-like"));
    await fs.writeFile(path.join(root, "etc-like", "shadow"), "the workspace's own\n");
    const swapper = await swapWithLink(root, "etc-like", "/etc");
    try {
      for (let i = 0; i < 200; i++) {
        const shown = await caller.fs.preview({ projectId, path: "etc-like/shadow" }).catch(() => null);
        expect(shown === null || shown.content === "the workspace's own\n").toBe(true);
      }
    } finally {
      expect(await swapper.stop()).toBeGreaterThan(0);
    }
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
    const { entries: all } = await caller.fs.tree({ projectId });
    expect(all.find((e) => e.name === "debug.log")?.ignored).toBe(true);
    const { entries: shown } = await caller.fs.tree({ projectId, showIgnored: false });
    expect(shown.map((e) => e.name)).not.toContain("debug.log");
    await caller.fs.rename({ projectId, from: "debug.log", to: "logs/debug.log", createParents: true });
    expect((await caller.fs.tree({ projectId, path: "logs" })).entries.map((e) => e.path)).toEqual(["logs/debug.log"]);
    await caller.fs.delete({ projectId, path: "logs" });
    expect((await caller.fs.tree({ projectId })).entries.map((e) => e.name)).not.toContain("logs");
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
    const iterator = changesOf(await owner.fs.changes({ projectId }));
    // Without a cursor it cannot know what the caller missed: it says to read everything first.
    expect((await iterator.next()).value?.[1]).toEqual(REREAD_ALL);
    // The listings above keep the root watched a while: earlier tests' changes may come first.
    const touching = setInterval(() => void fs.writeFile(path.join(root, "watched.txt"), String(Date.now())), 100);
    try {
      let next = await iterator.next();
      while (!next.done && next.value[1].path !== "watched.txt") next = await iterator.next();
      expect(next.value?.[1]).toMatchObject({ path: "watched.txt" });
    } finally {
      clearInterval(touching);
    }
    controller.abort();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});

describe("fs.changes from a listing's cursor", () => {
  /** The changes of a subscription from `cursor`, and the id of the last one, until `stop()`. */
  async function follow(project: string, cursor: string | null) {
    const controller = new AbortController();
    const owner = createCaller(env.context(ownerUser), { signal: controller.signal });
    const stream = changesOf(await owner.fs.changes({ projectId: project, lastEventId: cursor }));
    const seen: FileChange[] = [];
    let lastId = cursor;
    const done = (async () => {
      for await (const [id, change] of stream) {
        seen.push(change);
        lastId = id;
      }
    })();
    return {
      seen,
      lastId: () => lastId,
      has: (type: FileChange["type"], changed: string) => seen.some((c) => c.type === type && c.path === changed),
      async stop() {
        controller.abort();
        await done;
      },
    };
  }

  /** A listing of the project's root taken once its watcher is ready (before that, a cursor has no position). */
  async function readyListing(project: string) {
    let cursor = "";
    await until(
      async () => /:\d+$/.test((cursor = (await caller.fs.tree({ projectId: project })).cursor)),
      "a listing with a position in the change stream",
      10_000,
    );
    return cursor;
  }

  const seqOf = (cursor: string) => Number(cursor.split(":")[1]);

  it("a small project's first listing waits for its new watcher: the page's subscription reads nothing again", async () => {
    const project = (await caller.project.create({ name: "Cold open" })).id;
    const dir = env.services.files.pathOf(project);
    for (let i = 0; i < 20; i++) await fs.mkdir(path.join(dir, `folder-${i}`, "inner"), { recursive: true });
    // The first listing of a root nobody watches (a cold open after a restart).
    const { cursor } = await caller.fs.tree({ projectId: project });
    expect(cursor).toMatch(/^[0-9a-f]{12}:\d+$/);
    await fs.writeFile(path.join(dir, "after-listing.txt"), "made");
    const sub = await follow(project, cursor);
    await until(() => sub.has("add", "after-listing.txt"), "the change after the listing", 5_000);
    expect(sub.seen).not.toContainEqual(REREAD_ALL);
    await sub.stop();
  });

  it("replays what was made, deleted and renamed between the listing and the subscription", async () => {
    const project = (await caller.project.create({ name: "Window" })).id;
    const dir = env.services.files.pathOf(project);
    await fs.writeFile(path.join(dir, "old.txt"), "old");
    await fs.writeFile(path.join(dir, "moved.txt"), "moved");
    const cursor = await readyListing(project);
    // The window: another process changes the disk after the listing, before the subscription.
    await fs.writeFile(path.join(dir, "made.txt"), "made");
    await fs.mkdir(path.join(dir, "folder"));
    await fs.writeFile(path.join(dir, "folder", "inner.txt"), "inner");
    await fs.rm(path.join(dir, "old.txt"));
    await fs.rename(path.join(dir, "moved.txt"), path.join(dir, "renamed.txt"));
    // Wait until the watcher has passed them on, so that only a replay can bring them.
    await until(
      async () => seqOf((await caller.fs.tree({ projectId: project })).cursor) > seqOf(cursor),
      "the watcher reporting the window's changes",
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));

    const sub = await follow(project, cursor);
    await until(
      () =>
        sub.has("add", "made.txt") &&
        sub.has("addDir", "folder") &&
        sub.has("add", "folder/inner.txt") &&
        sub.has("unlink", "old.txt") &&
        sub.has("unlink", "moved.txt") &&
        sub.has("add", "renamed.txt"),
      "every change of the window",
      5_000,
    );
    expect(sub.seen).not.toContainEqual(REREAD_ALL);
    await sub.stop();
  });

  it("after a dropped connection, resumes from the last change received", async () => {
    const project = (await caller.project.create({ name: "Reconnect" })).id;
    const dir = env.services.files.pathOf(project);
    const first = await follow(project, await readyListing(project));
    await fs.writeFile(path.join(dir, "before.txt"), "before");
    await until(() => first.has("add", "before.txt"), "the change before the drop", 5_000);
    await first.stop();
    const lastId = first.lastId();

    // While the socket is down, the disk changes; the client reconnects with the id it last got.
    await fs.writeFile(path.join(dir, "while-down.txt"), "down");
    await fs.rm(path.join(dir, "before.txt"));
    await until(
      async () => seqOf((await caller.fs.tree({ projectId: project })).cursor) > seqOf(lastId!),
      "the watcher reporting the changes made while down",
      10_000,
    );
    const again = await follow(project, lastId);
    await until(
      () => again.has("add", "while-down.txt") && again.has("unlink", "before.txt"),
      "the changes made while down",
      5_000,
    );
    expect(again.seen).not.toContainEqual(REREAD_ALL);
    expect(again.has("add", "before.txt")).toBe(false);
    await again.stop();
  });

  it("never replays another project's changes to a cursor taken there, nor to one from the future", async () => {
    const theirs = (await caller.project.create({ name: "Their project" })).id;
    const mine = (await caller.project.create({ name: "My project" })).id;
    const theirCursor = await readyListing(theirs);
    await readyListing(mine);
    await fs.writeFile(path.join(env.services.files.pathOf(theirs), "their-secret-plan.txt"), "plan");
    await until(
      async () => seqOf((await caller.fs.tree({ projectId: theirs })).cursor) > seqOf(theirCursor),
      "their watcher reporting the change",
      10_000,
    );
    const [epoch] = theirCursor.split(":");
    for (const cursor of [theirCursor, `${epoch}:0`, `${epoch}:999999999999999`]) {
      const sub = await follow(mine, cursor);
      await until(() => sub.seen.length > 0, "the subscription's first change", 5_000);
      expect(sub.seen[0]).toEqual(REREAD_ALL);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(sub.seen.some((change) => change.path.includes("their-secret-plan"))).toBe(false);
      await sub.stop();
    }
  });

  it("tells a subscriber to read everything again when its cursor means nothing here", async () => {
    const project = (await caller.project.create({ name: "Unknown cursor" })).id;
    await readyListing(project);
    for (const cursor of ["000000000000:0", "not a cursor", "", null]) {
      const sub = await follow(project, cursor);
      await until(() => sub.seen.length > 0, "the subscription's first change", 5_000);
      expect(sub.seen[0]).toEqual(REREAD_ALL);
      await sub.stop();
    }
  });
});
