import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { languageSocketUrl } from "@/lib/language-protocol";
import { LiveDocCloseCode } from "@/lib/live-doc-protocol";
import { treeKey } from "@/lib/trees";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createShareLink } from "@/server/db/repositories/share-links";
import { setSetting } from "@/server/db/repositories/settings";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { findUser } from "@/server/db/repositories/users";
import { startServer, type RunningServer } from "@/server/start-server";
import { createTestServices, signUpPerson } from "@/server/test/services";

// A session's tree through every door that takes one, as an attacker would try them: uploads,
// downloads and the language socket name a tree with `tree=`; reading it needs the same right as
// reading the project, a tree of another project (or a discarded one) names nothing, and a view
// link reaches its own session's tree only, and none of these doors.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let base: string;
const cookies: Record<string, string> = {};
let projectId: string;
let otherProjectId: string;
let alpha: string;
let beta: string;
let foreign: string;
let viewToken: string;
const callerFor = createCallerFactory(appRouter);
let owner: ReturnType<typeof callerFor>;
const MODEL = "openai-compatible:none";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

async function gitProject(name: string, teamId: string) {
  const project = await owner.project.create({ name, teamId });
  const root = env.services.files.pathOf(project.id);
  await writeFile(path.join(root, "readme.md"), `# ${name}\n`);
  git(root, "init", "-q", "-b", "main");
  git(root, "add", ".");
  git(root, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-qm", "first");
  return project.id;
}

async function download(who: string | null, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/projects/${projectId}/download?${query}`, {
    headers: { ...(who ? { cookie: cookies[who]! } : {}), ...headers },
  });
  return { status: response.status, text: await response.text() };
}

async function upload(who: string, query: string, name: string, data: string) {
  const body = new FormData();
  body.append("path", name);
  body.append("file", new Blob([data]), name);
  const response = await fetch(`${base}/api/projects/${projectId}/upload?${query}`, {
    method: "POST",
    body,
    headers: { origin: base, cookie: cookies[who]! },
  });
  return response.status;
}

function upgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => {
      resolve(101);
      ws.close();
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => resolve(0));
  });
}

beforeAll(async () => {
  env = await createTestServices();
  const services = { ...env.services, config: { ...env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  base = server.url;
  const ownerPerson = await signUp("Olive");
  await setSetting(env.services.db, "signupMode", "open");
  const member = await signUp("Milo");
  const viewer = await signUp("Vera");
  const stranger = await signUp("Sam");
  Object.assign(cookies, {
    owner: ownerPerson.cookie,
    member: member.cookie,
    viewer: viewer.cookie,
    stranger: stranger.cookie,
  });
  const team = await createTeam(env.services.db, { name: "Acme", ownerId: ownerPerson.id });
  await addMember(env.services.db, team.id, member.id, "member");
  await addMember(env.services.db, team.id, viewer.id, "viewer");
  owner = callerFor(env.context((await findUser(env.services.db, ownerPerson.id))!));
  projectId = await gitProject("Trees", team.id);
  otherProjectId = await gitProject("Elsewhere", team.id);
  alpha = (await owner.tree.startSession({ projectId, title: "Alpha", model: MODEL })).id;
  beta = (await owner.tree.startSession({ projectId, title: "Beta", model: MODEL })).id;
  foreign = (await owner.tree.startSession({ projectId: otherProjectId, title: "Foreign", model: MODEL })).id;
  await writeFile(
    path.join(env.services.files.treePath({ projectId, treeId: alpha }), "readme.md"),
    "# alpha's change\n",
  );
  const link = await createShareLink(env.services.db, {
    sessionId: alpha,
    scope: "view",
    label: "view",
    createdById: ownerPerson.id,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  viewToken = link.token;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

const signUp = (name: string) => signUpPerson(env.services, name);

describe("a session's tree through uploads and downloads", () => {
  it("downloads the named tree for whoever may read the project, and nothing for others", async () => {
    expect((await download("viewer", `path=readme.md&tree=${alpha}`)).text).toBe("# alpha's change\n");
    expect((await download("viewer", "path=readme.md&tree=main")).text).toBe("# Trees\n");
    expect((await download("member", `path=readme.md&tree=${beta}`)).text).toBe("# Trees\n");
    expect((await download(null, `path=readme.md&tree=${alpha}`)).status).toBe(401);
    expect((await download("stranger", `path=readme.md&tree=${alpha}`)).status).toBe(404);
    // A tree of another project, or no tree at all, is not found here; a malformed name is refused.
    expect((await download("owner", `path=readme.md&tree=${foreign}`)).status).toBe(404);
    expect((await download("owner", `path=readme.md&tree=${crypto.randomUUID()}`)).status).toBe(404);
    expect((await download("owner", "path=readme.md&tree=../../workspaces")).status).toBe(400);
    // A view link of the session opens no door to files, not even its own tree's.
    expect((await download(null, `path=readme.md&tree=${alpha}`, { "x-tandem-share": viewToken })).status).toBe(401);
  });

  it("uploads into the named tree only, for writers", async () => {
    expect(await upload("member", `tree=${beta}`, "note.txt", "beta's note")).toBe(200);
    expect(
      await readFile(path.join(env.services.files.treePath({ projectId, treeId: beta }), "note.txt"), "utf8"),
    ).toBe("beta's note");
    await expect(readFile(path.join(env.services.files.pathOf(projectId), "note.txt"))).rejects.toThrow();
    await expect(
      readFile(path.join(env.services.files.treePath({ projectId, treeId: alpha }), "note.txt")),
    ).rejects.toThrow();
    expect(await upload("viewer", `tree=${beta}`, "x.txt", "x")).toBe(403);
    expect(await upload("owner", `tree=${foreign}`, "x.txt", "x")).toBe(404);
  });

  it("finds a discarded tree no more, and its language servers stop with it", async () => {
    const gone = (await owner.tree.startSession({ projectId, title: "Gone", model: MODEL })).id;
    expect((await download("owner", `path=readme.md&tree=${gone}`)).status).toBe(200);
    const socket = languageSocketUrl({ protocol: "http:", host: new URL(base).host }, projectId, "typescript", gone);
    expect(await upgrade(socket, { origin: base, cookie: cookies.owner! })).toBe(101);
    const key = treeKey({ projectId, treeId: gone });
    expect(env.services.language.status(key).map((s) => s.server)).toEqual(["typescript"]);
    await owner.tree.discard({ sessionId: gone });
    expect(env.services.language.status(key)).toEqual([]);
    expect((await download("owner", `path=readme.md&tree=${gone}`)).status).toBe(404);
    expect(await upgrade(socket, { origin: base, cookie: cookies.owner! })).toBe(404);
  });
});

describe("a session's tree through the language socket", () => {
  const url = (tree: string, project = projectId) =>
    languageSocketUrl({ protocol: "http:", host: new URL(base).host }, project, "typescript", tree);

  it("opens for the project's readers on one of its trees, and for no other tree", async () => {
    expect(await upgrade(url(alpha), { origin: base, cookie: cookies.viewer! })).toBe(101);
    expect(await upgrade(url("main"), { origin: base, cookie: cookies.viewer! })).toBe(101);
    expect(await upgrade(url(alpha), { origin: base, cookie: cookies.stranger! })).toBe(404);
    expect(await upgrade(url(foreign), { origin: base, cookie: cookies.owner! })).toBe(404);
    expect(await upgrade(url("../x"), { origin: base, cookie: cookies.owner! })).toBe(404);
    expect(await upgrade(url(alpha), { origin: base })).toBe(401);
  });
});

describe("a view link and trees", () => {
  it("shows its own session's tree, never another session's, and no workspace procedure", async () => {
    const link = callerFor({ ...env.context(null), shareToken: viewToken });
    expect(await link.tree.ofSession({ sessionId: alpha })).toMatchObject({ sessionId: alpha, branch: "tandem/alpha" });
    await expect(link.tree.ofSession({ sessionId: beta })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(link.fs.read({ projectId, tree: alpha, path: "readme.md" })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
    await expect(link.git.status({ projectId, tree: alpha })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(link.review.changes({ sessionId: beta })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("reads the files its session touched in the session's own tree, never the main tree's file of that name", async () => {
    // The main tree holds its own readme.md, which the session on its branch never touched.
    await writeFile(path.join(env.services.files.pathOf(projectId), "readme.md"), "main tree: uncommitted work\n");
    await env.services.agent.log.append(alpha, "tool_call", {
      turnId: "t1",
      stepId: "t1:1",
      toolCallId: "call_readme",
      toolName: "read_file",
      input: { path: "readme.md" },
      title: "Read readme.md",
      kind: "read",
    });
    const link = callerFor({ ...env.context(null), shareToken: viewToken });
    expect(await link.share.read({ sessionId: alpha, path: "readme.md" })).toMatchObject({
      content: "# alpha's change\n",
    });
    // Live documents are the main tree's: the link's live socket opens none for a session on a branch.
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => {
      const query = new URLSearchParams({ share: viewToken, sessionId: alpha, path: "readme.md" });
      const ws = new WebSocket(`${base.replace(/^http/, "ws")}/api/live/ws?${query}`, { headers: { origin: base } });
      ws.on("message", () => resolve({ code: 0, reason: "it served a document" }));
      ws.on("close", (code, reason) => resolve({ code, reason: String(reason) }));
      ws.on("error", () => resolve({ code: -1, reason: "refused" }));
    });
    expect(closed.code).toBe(LiveDocCloseCode.notLive);
  });
});
