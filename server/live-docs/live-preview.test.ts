import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import { TRPCClientError } from "@trpc/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createShareLink } from "@/server/db/repositories/share-links";
import { setSetting } from "@/server/db/repositories/settings";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { startServer, type RunningServer } from "@/server/start-server";
import { connect } from "@/server/test/cluster-client";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { until } from "@/server/test/until";
import { LiveDocConnection, type SocketLike } from "@/lib/live-doc-connection";
import { LIVE_DOC_MAX_BYTES, liveDocSocketUrl } from "@/lib/live-doc-protocol";

// fs.preview (the text shown while the editor loads) through a real server and the real live
// client: the text the editor will show, a teammate's unsaved typing included, not the disk's
// older one. And, as an attacker would try it, never a live document they could not open: not
// from outside the project, not another project's through a link or a path, not the main tree's
// under a session's tree, not through a share link.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let projectId: string;
let strangersProjectId: string;
let alpha: string;
let viewToken: string;
const people: Record<string, { cookie: string; id: string }> = {};
const open: LiveDocConnection[] = [];
const clients: Array<{ close(): void }> = [];
const callerFor = createCallerFactory(appRouter);

const root = (id = projectId) => env.services.files.pathOf(id);
const onDisk = (file: string, id = projectId) => fs.readFile(path.join(root(id), file), "utf8");

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", "-c", "core.hooksPath=/dev/null", ...args], {
    cwd,
    stdio: "pipe",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

function client(who: string | null, options: { shareToken?: string } = {}) {
  const made = connect(server.url, { ...(who ? { cookie: people[who]!.cookie } : {}), ...options });
  clients.push(made);
  return made.trpc;
}

const preview = (who: string, file: string, more: { projectId?: string; tree?: string } = {}) =>
  client(who).fs.preview.query({ projectId, path: file, ...more });

/** The refusal's tRPC code, or "answered". */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => "answered",
    (error: unknown) =>
      error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : error,
  );

async function connected(who: string, file: string) {
  const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, file);
  const connection = new LiveDocConnection(
    url,
    (at) =>
      new WebSocket(at, { headers: { cookie: people[who]!.cookie, origin: server.url } }) as unknown as SocketLike,
  );
  open.push(connection);
  await until(() => connection.connected, `${who} connected to ${file}`, 10_000);
  return connection;
}

/** Typed into `connection` and held by the server's document (the preview there shows it). */
async function typedUnsaved(connection: LiveDocConnection, file: string, at: number, text: string) {
  connection.text.insert(at, text);
  const expected = connection.text.toString();
  await until(
    async () => (await preview("owner", file))?.content === expected,
    `the server to hold ${file}'s typing`,
    10_000,
  );
  return expected;
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  people.owner = await signUpPerson(env.services, "Olive");
  await setSetting(env.services.db, "signupMode", "open");
  people.member = await signUpPerson(env.services, "Milo");
  people.viewer = await signUpPerson(env.services, "Vera");
  people.stranger = await signUpPerson(env.services, "Sam");
  const db = env.services.db;
  const team = await createTeam(db, { name: "Pair", ownerId: people.owner.id });
  await addMember(db, team.id, people.member.id, "member");
  await addMember(db, team.id, people.viewer.id, "viewer");
  const owner = callerFor(env.context((await findUser(db, people.owner.id))!));
  projectId = (await owner.project.create({ name: "Live preview", teamId: team.id })).id;
  // A repository, so that a session can have a tree of its own (a worktree with the same files).
  await fs.writeFile(path.join(root(), "readme.md"), "# committed\n");
  git(root(), "init", "-q", "-b", "main");
  git(root(), "add", ".");
  git(root(), "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-qm", "first");
  alpha = (await owner.tree.startSession({ projectId, title: "Alpha", model: "openai-compatible:none" })).id;
  await fs.writeFile(path.join(env.services.files.treePath({ projectId, treeId: alpha }), "readme.md"), "# alpha\n");
  viewToken = (
    await createShareLink(db, {
      sessionId: alpha,
      scope: "view",
      label: "view",
      createdById: people.owner.id,
      expiresAt: new Date(Date.now() + 3_600_000),
    })
  ).token;
  const stranger = callerFor(env.context((await findUser(db, people.stranger.id))!));
  strangersProjectId = (await stranger.project.create({ name: "Sam's own" })).id;
}, 60_000);

afterEach(() => {
  for (const connection of open.splice(0)) connection.destroy();
  for (const made of clients.splice(0)) made.close();
});

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("fs.preview while a file is open live", () => {
  it("shows a teammate's unsaved typing, not the disk's text, to another member and to a viewer; the disk's again once it is saved and closed", async () => {
    await fs.writeFile(path.join(root(), "notes.txt"), "saved line\n");
    const openBefore = env.services.liveDocs.size();
    const milo = await connected("member", "notes.txt");
    const live = await typedUnsaved(milo, "notes.txt", 0, "unsaved typing, ");
    expect(live).toBe("unsaved typing, saved line\n");
    expect(await onDisk("notes.txt")).toBe("saved line\n");
    expect(await preview("owner", "notes.txt")).toEqual({ content: live });
    expect(await preview("viewer", "notes.txt")).toEqual({ content: live });
    // The same file under another spelling is the same document.
    expect(await preview("viewer", "./sub/../notes.txt")).toEqual({ content: live });
    // fs.read stays the disk's (the editor's conflict view and the agent compare with it).
    const read = await client("owner").fs.read.query({ projectId, path: "notes.txt" });
    expect(read.kind === "text" && read.content).toBe("saved line\n");

    await milo.save();
    milo.destroy();
    // Saved and left: the document closes, and the preview reads the disk again.
    await until(() => env.services.liveDocs.size() === openBefore, "the document closed");
    await fs.writeFile(path.join(root(), "notes.txt"), "written by a terminal\n");
    expect(await preview("owner", "notes.txt")).toEqual({ content: "written by a terminal\n" });
  });

  it("answers from the document without reading the disk: a FIFO planted under the open file's name does not hold it", async () => {
    await fs.writeFile(path.join(root(), "piped.txt"), "before\n");
    const milo = await connected("member", "piped.txt");
    const live = await typedUnsaved(milo, "piped.txt", 0, "typed ");
    await fs.rm(path.join(root(), "piped.txt"));
    execFileSync("mkfifo", [path.join(root(), "piped.txt")]);
    try {
      expect(await preview("viewer", "piped.txt")).toEqual({ content: live });
    } finally {
      await fs.rm(path.join(root(), "piped.txt"));
    }
  });

  it("gives nothing for a document that grew past the preview's limit, as for such a file on disk", async () => {
    await fs.writeFile(path.join(root(), "grown.txt"), "small\n");
    const milo = await connected("member", "grown.txt");
    milo.text.insert(0, "x".repeat(LIVE_DOC_MAX_BYTES));
    await until(
      async () => (await preview("owner", "grown.txt")) === null,
      "the grown document to preview as nothing",
      10_000,
    );
  });
});

describe("fs.preview as an attacker tries it on a file open live", () => {
  it("gives nothing to someone outside the project, signed out, or holding a view link of its session", async () => {
    await fs.writeFile(path.join(root(), "secret.txt"), "on disk\n");
    const milo = await connected("member", "secret.txt");
    await typedUnsaved(milo, "secret.txt", 0, "the team's unsaved secret ");
    expect(await refusal(preview("stranger", "secret.txt"))).toBe("NOT_FOUND");
    expect(await refusal(client(null).fs.preview.query({ projectId, path: "secret.txt" }))).toBe("UNAUTHORIZED");
    expect(
      await refusal(client(null, { shareToken: viewToken }).fs.preview.query({ projectId, path: "secret.txt" })),
    ).toBe("UNAUTHORIZED");
  });

  it("never gives another project's document: not under the same name, nor through a link or a path out of the stranger's own project", async () => {
    await fs.writeFile(path.join(root(), "shared-name.txt"), "the team's file\n");
    const milo = await connected("member", "shared-name.txt");
    await typedUnsaved(milo, "shared-name.txt", 0, "the team's unsaved ");
    const own = root(strangersProjectId);
    await fs.writeFile(path.join(own, "shared-name.txt"), "Sam's own file\n");
    await fs.symlink(path.join(root(), "shared-name.txt"), path.join(own, "link-out.txt"));
    await fs.symlink(root(), path.join(own, "their-project"));
    const mine = (file: string) => preview("stranger", file, { projectId: strangersProjectId });
    expect(await mine("shared-name.txt")).toEqual({ content: "Sam's own file\n" });
    for (const attempt of [
      "link-out.txt",
      "their-project/shared-name.txt",
      `../${projectId}/shared-name.txt`,
      path.join(root(), "shared-name.txt"),
    ])
      expect(await refusal(mine(attempt)), attempt).toBe("BAD_REQUEST");
  });

  it("never gives the main tree's document under a session's tree: that tree's own file is read", async () => {
    const milo = await connected("member", "readme.md");
    const live = await typedUnsaved(milo, "readme.md", 0, "main's unsaved ");
    expect(await preview("viewer", "readme.md")).toEqual({ content: live });
    expect(await preview("viewer", "readme.md", { tree: alpha })).toEqual({ content: "# alpha\n" });
    expect(await preview("viewer", "readme.md", { tree: "main" })).toEqual({ content: live });
  });
});
