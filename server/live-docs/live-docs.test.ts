import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import * as Y from "yjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { setSetting } from "@/server/db/repositories/settings";
import { startServer, type RunningServer } from "@/server/start-server";
import { createTestServices, signUpPerson } from "@/server/test/services";
import { until } from "@/server/test/until";
import { LiveDocConnection, type LiveDocEnd, type SocketLike } from "@/lib/live-doc-connection";
import { LIVE_DOC_MAX_BYTES, liveDocSocketUrl, linkedLiveDocSocketUrl, LiveMessage } from "@/lib/live-doc-protocol";
import { createSession } from "@/server/db/repositories/sessions";
import { createShareLink } from "@/server/db/repositories/share-links";
import type { Workspace } from "@/server/workspace";

// Live documents through a real server and the real client (lib/live-doc-connection.ts over the
// `ws` package): people typing at once, saving, changes on disk merged in, and attacks on the socket.

let env: Awaited<ReturnType<typeof createTestServices>>;
let server: RunningServer;
let projectId: string;
let teamId: string;
let workspace: Workspace;
const people: Record<string, { cookie: string; id: string }> = {};
const open: LiveDocConnection[] = [];
const callerFor = createCallerFactory(appRouter);
let ownerCaller: ReturnType<typeof callerFor>;

function socketFor(cookie: string) {
  return (url: string) => new WebSocket(url, { headers: { cookie, origin: server.url } }) as unknown as SocketLike;
}

function connect(who: string, file: string) {
  const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, file);
  const connection = new LiveDocConnection(url, socketFor(people[who].cookie));
  const ended = new Promise<LiveDocEnd>((resolve) => connection.onEnd(resolve));
  open.push(connection);
  return { connection, ended };
}

async function connected(who: string, file: string) {
  const { connection } = connect(who, file);
  await until(() => connection.connected, `${who} connected to ${file}`, 10_000);
  return connection;
}

/** Types `text` at `at` as a person's editor would: one transaction per character. */
function type(connection: LiveDocConnection, at: number, text: string) {
  for (let i = 0; i < text.length; i++) connection.text.insert(at + i, text[i]);
}

const disk = (file: string) => fs.readFile(path.join(workspace.root, file), "utf8");

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
  teamId = (await createTeam(db, { name: "Pair", ownerId: people.owner.id })).id;
  await addMember(db, teamId, people.member.id, "member");
  await addMember(db, teamId, people.viewer.id, "viewer");
  ownerCaller = callerFor(env.context((await findUser(db, people.owner.id))!));
  projectId = (await ownerCaller.project.create({ name: "Live", teamId })).id;
  workspace = await env.services.files.open(projectId);
}, 60_000);

afterEach(() => {
  for (const connection of open.splice(0)) connection.destroy();
});

afterAll(async () => {
  await server?.close();
  await env?.dispose();
});

describe("live documents", () => {
  it("shares a CRLF file, keeping its line endings on save", async () => {
    await workspace.write("dos.txt", "one\r\ntwo\r\n");
    const a = await connected("owner", "dos.txt");
    type(a, "one".length, "!");
    await a.save();
    expect(await disk("dos.txt")).toBe("one!\r\ntwo\r\n");
  });

  it("merges two people typing into the same line at once; one save writes it and clears the dirty mark for both", async () => {
    await workspace.write("same-line.txt", "hello world\n");
    const a = await connected("owner", "same-line.txt");
    const b = await connected("member", "same-line.txt");
    expect(a.text.toString()).toBe("hello world\n");
    type(a, 5, " AAA");
    type(b, 11, " BBB");
    await until(
      () => a.text.toString() === b.text.toString() && a.text.toString().length === "hello world\n".length + 8,
      "both copies to hold both people's typing",
      5_000,
    );
    expect(a.text.toString()).toBe("hello AAA world BBB\n");
    await until(() => !!a.state?.dirty && !!b.state?.dirty, "the shared dirty mark", 5_000);

    await b.save();
    expect(await disk("same-line.txt")).toBe("hello AAA world BBB\n");
    await until(() => a.state?.dirty === false && b.state?.dirty === false, "both to see it saved", 5_000);
    expect(a.state?.version).toBe(b.state?.version);
  });

  it("merges a change on disk into both open copies without losing what either typed", async () => {
    await workspace.write("merge.txt", "one\ntwo\nthree\nfour\n");
    const a = await connected("owner", "merge.txt");
    const b = await connected("member", "merge.txt");
    type(a, 0, "A-");
    type(b, a.text.toString().length, "five\n");
    await until(() => a.text.toString() === b.text.toString() && b.text.toString().includes("five"), "in sync");

    // A terminal's sed -i: a new file in place of the old one, on a line nobody is typing in.
    execFileSync("sed", ["-i", "s/three/THREE/", path.join(workspace.root, "merge.txt")]);
    await until(() => a.text.toString().includes("THREE") && b.text.toString().includes("THREE"), "the disk's change");
    expect(a.text.toString()).toBe("A-one\ntwo\nTHREE\nfour\nfive\n");
    expect(b.text.toString()).toBe(a.text.toString());
    expect(a.state?.dirty).toBe(true);

    // Typing goes on through it, and saving writes what everyone sees.
    type(b, 0, "B");
    await until(() => a.text.toString().startsWith("BA-one"), "typing after the merge");
    await a.save();
    expect(await disk("merge.txt")).toBe("BA-one\ntwo\nTHREE\nfour\nfive\n");
  });

  it("merges a git pull into both open copies while both people have unsaved typing", async () => {
    // The workspace becomes a repository with the file committed; a teammate's clone elsewhere
    // commits a change to another line; `git pull` rewrites the file under both open editors.
    const git = (cwd: string, ...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "core.hooksPath=/dev/null", "-c", "user.name=T", "-c", "user.email=t@example.com", ...args],
        {
          cwd,
          stdio: "pipe",
        },
      );
    const repo = path.join(workspace.root, "pulled");
    await fs.mkdir(repo);
    await fs.writeFile(path.join(repo, "notes.txt"), "alpha\nbeta\ngamma\ndelta\n");
    git(repo, "init", "-q", "-b", "main");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "first");
    const elsewhere = await fs.mkdtemp(path.join(path.dirname(workspace.root), "clone-"));
    git(elsewhere, "clone", "-q", repo, ".");
    await fs.writeFile(path.join(elsewhere, "notes.txt"), "alpha\nbeta\nGAMMA from the remote\ndelta\n");
    git(elsewhere, "commit", "-q", "-am", "remote change");

    const a = await connected("owner", "pulled/notes.txt");
    const b = await connected("member", "pulled/notes.txt");
    type(a, 0, "A says ");
    type(b, "alpha\nbeta\ngamma\ndelta".length, " (B)");
    await until(() => a.text.toString() === b.text.toString() && a.text.toString().includes("(B)"), "in sync");

    git(repo, "pull", "-q", "--no-rebase", elsewhere, "main");
    await until(() => a.text.toString().includes("GAMMA") && b.text.toString().includes("GAMMA"), "the pull");
    expect(a.text.toString()).toBe("A says alpha\nbeta\nGAMMA from the remote\ndelta (B)\n");
    expect(b.text.toString()).toBe(a.text.toString());
    await b.save();
    expect(await disk("pulled/notes.txt")).toBe("A says alpha\nbeta\nGAMMA from the remote\ndelta (B)\n");
    await fs.rm(elsewhere, { recursive: true, force: true });
  });

  it("keeps both versions between markers when the disk changed a line someone is editing", async () => {
    await workspace.write("overlap.txt", "keep\nedit me\nkeep\n");
    const a = await connected("owner", "overlap.txt");
    a.text.delete("keep\nedit ".length, 2);
    type(a, "keep\nedit ".length, "you");
    await until(() => a.state?.dirty === true, "dirty");
    await fs.writeFile(path.join(workspace.root, "overlap.txt"), "keep\nedited on disk\nkeep\n");
    await until(() => a.state?.conflicts === 1, "the overlap flagged");
    const text = a.text.toString();
    expect(text).toContain("edit you");
    expect(text).toContain("edited on disk");
    expect(text).toContain("<<<<<<< unsaved live edits");
  });

  it("saves over a change the watcher has not reported yet by merging it first, never over it", async () => {
    await workspace.write("race.txt", "a\nb\nc\n");
    const a = await connected("owner", "race.txt");
    type(a, 0, "x");
    await until(() => a.state?.dirty === true, "dirty");
    // Written through the workspace and saved at once: the save meets the newer version.
    await workspace.write("race.txt", "a\nb\nC\n");
    await a.save();
    expect(await disk("race.txt")).toBe("xa\nb\nC\n");
  });

  it("undoes only the person's own typing", async () => {
    await workspace.write("undo.txt", "base\n");
    const a = await connected("owner", "undo.txt");
    const b = await connected("member", "undo.txt");
    const mine = { origin: "a's editor" };
    const undo = new Y.UndoManager(a.text, { trackedOrigins: new Set([mine]) });
    a.doc.transact(() => a.text.insert(0, "A1 "), mine);
    type(b, b.text.length, "B1");
    await until(() => a.text.toString() === "A1 base\nB1" && b.text.toString() === a.text.toString(), "in sync");
    undo.undo();
    await until(() => b.text.toString() === "base\nB1", "a's undo to reach b");
    expect(a.text.toString()).toBe("base\nB1");
    undo.destroy();
  });

  it("autosaves once for everyone after the project's delay, through the same save", async () => {
    await workspace.write("autosave.txt", "draft\n");
    await ownerCaller.project.setAutosave({ projectId, afterMs: 500 });
    try {
      const a = await connected("owner", "autosave.txt");
      const b = await connected("member", "autosave.txt");
      type(a, 0, "A ");
      type(b, b.text.length, "B\n");
      await until(() => a.state?.dirty === true, "dirty", 5_000);
      await until(async () => (await disk("autosave.txt")) === "A draft\nB\n", "the autosave", 10_000);
      await until(() => a.state?.dirty === false && b.state?.dirty === false, "both see it saved", 5_000);
    } finally {
      await ownerCaller.project.setAutosave({ projectId, afterMs: null });
    }
    // Off again: typing stays unsaved.
    const a = await connected("owner", "autosave.txt");
    type(a, 0, "more ");
    await until(() => a.state?.dirty === true, "dirty", 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await disk("autosave.txt")).toBe("A draft\nB\n");
    await a.save();
  });

  it("refuses a member's autosave setting and nonsense delays", async () => {
    const member = callerFor(env.context((await findUser(env.services.db, people.member.id))!));
    await expect(member.project.setAutosave({ projectId, afterMs: 1000 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(ownerCaller.project.setAutosave({ projectId, afterMs: 1 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("tells the project who has which file open (the explorer's presence), and when they leave", async () => {
    await workspace.write("src/open.ts", "x\n", { createParents: true });
    const stream = (await ownerCaller.fs.presence({ projectId }))[Symbol.asyncIterator]();
    const seen: { name: string; place?: string }[][] = [];
    const reading = (async () => {
      for (let next = await stream.next(); !next.done; next = await stream.next()) seen.push(next.value);
    })();
    const milo = connect("member", "src/open.ts");
    await until(() => milo.connection.connected, "connected", 10_000);
    await until(
      () => seen.at(-1)?.some((entry) => entry.name === "Milo" && entry.place === "src/open.ts") ?? false,
      "Milo in src/open.ts",
      5_000,
    );
    milo.connection.destroy();
    await until(() => !seen.at(-1)?.some((entry) => entry.name === "Milo"), "Milo gone", 5_000);
    await stream.return?.();
    await reading;
  });

  it("keeps unsaved typing for the next holder: the document starts again as the same one, and its editors type on", async () => {
    await workspace.write("moved.txt", "saved line\n");
    const a = await connected("owner", "moved.txt");
    const b = await connected("member", "moved.txt");
    type(a, 0, "unsaved A ");
    await until(() => b.text.toString().startsWith("unsaved A "), "b sees a's typing", 5_000);
    const epoch = a.state?.epoch;
    // The instance loses the project (another took it over): every document closes, kept in the journal.
    env.services.liveDocs.closeProject(projectId);
    await until(() => !a.connected, "a told to reconnect", 5_000);
    await until(() => a.connected && b.connected, "both back", 15_000);
    expect(a.state?.epoch).toBe(epoch);
    expect(a.text.toString()).toBe("unsaved A saved line\n");
    expect(a.state?.dirty).toBe(true);
    type(b, b.text.length, "B after\n");
    await until(() => a.text.toString().endsWith("B after\n"), "typing goes on", 5_000);
    await a.save();
    expect(await disk("moved.txt")).toBe("unsaved A saved line\nB after\n");
  });

  it("shows each person by the name the server knows, whatever the client claims", async () => {
    await workspace.write("names.txt", "x\n");
    const a = await connected("owner", "names.txt");
    const b = await connected("member", "names.txt");
    a.awareness.setLocalStateField("user", { name: "Milo (not really)", color: "#000" });
    await until(() => [...b.peers().values()].some((peer) => peer.user.name === "Olive"), "Olive's presence");
    expect([...b.peers().values()].map((peer) => peer.user.name)).toEqual(["Olive"]);
    // A viewer is seen too (read-only, but present).
    await connected("viewer", "names.txt");
    await until(() => [...b.peers().values()].some((peer) => peer.user.name === "Vera"), "Vera's presence", 5_000);
  });
});

describe("live documents as an attacker", () => {
  it("refuses a viewer's edits on the server and closes the socket", async () => {
    await workspace.write("viewer.txt", "read me\n");
    const owner = await connected("owner", "viewer.txt");
    const viewer = await connected("viewer", "viewer.txt");
    expect(viewer.state?.readOnly).toBe(true);
    expect(owner.state?.readOnly).toBe(false);

    // A forged edit straight on the socket, as a hostile client would send it.
    const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, "viewer.txt");
    const raw = new WebSocket(url, { headers: { cookie: people.viewer.cookie, origin: server.url } });
    const closed = new Promise<number>((resolve) => raw.on("close", (code) => resolve(code)));
    await new Promise((resolve) => raw.once("message", resolve));
    const forged = new Y.Doc();
    forged.getText("content").insert(0, "pwned ");
    const update = Y.encodeStateAsUpdate(forged);
    raw.send(new Uint8Array([LiveMessage.sync, 2, ...varUint(update.length), ...update]));
    expect(await closed).toBe(4400);

    // And the viewer's own client, typing anyway, changes nothing anyone else sees.
    viewer.text.insert(0, "also pwned ");
    owner.text.insert(owner.text.length, "owner typed\n");
    await until(() => owner.text.toString().endsWith("owner typed\n"), "the owner's typing");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(owner.text.toString()).toBe("read me\nowner typed\n");
    await owner.save();
    expect(await disk("viewer.txt")).toBe("read me\nowner typed\n");
  });

  it("does not let a viewer save", async () => {
    await workspace.write("viewer-save.txt", "v1\n");
    const owner = await connected("owner", "viewer-save.txt");
    type(owner, 0, "unsaved ");
    const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, "viewer-save.txt");
    const raw = new WebSocket(url, { headers: { cookie: people.viewer.cookie, origin: server.url } });
    const closed = new Promise<number>((resolve) => raw.on("close", (code) => resolve(code)));
    await new Promise((resolve) => raw.once("message", resolve));
    raw.send(new Uint8Array([LiveMessage.save]));
    expect(await closed).toBe(4400);
    expect(await disk("viewer-save.txt")).toBe("v1\n");
  });

  it("refuses strangers and other origins before upgrading", async () => {
    const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, "x.txt");
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on("open", () => (resolve(101), ws.close()));
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("error", () => resolve(0));
      });
    expect(await status({ origin: server.url })).toBe(401);
    expect(await status({ origin: server.url, cookie: people.stranger.cookie })).toBe(404);
    expect(await status({ origin: "https://evil.example.com", cookie: people.owner.cookie })).toBe(403);
  });

  it("does not make live a FIFO, a link out of the workspace, a binary, an oversize or a mixed-line-ending file", async () => {
    execFileSync("mkfifo", [path.join(workspace.root, "pipe")]);
    await fs.symlink("/etc/passwd", path.join(workspace.root, "passwd-link"));
    await fs.writeFile(path.join(workspace.root, "image.bin"), Buffer.from([0, 1, 2, 3, 0, 255]));
    await fs.writeFile(path.join(workspace.root, "big.txt"), "x".repeat(LIVE_DOC_MAX_BYTES + 1));
    await fs.writeFile(path.join(workspace.root, "mixed.txt"), "dos\r\nunix\n");
    const before = env.services.liveDocs.size();
    for (const file of ["pipe", "passwd-link", "image.bin", "big.txt", "mixed.txt", "../outside.txt", "missing.txt"]) {
      const { ended } = connect("owner", file);
      const end = await ended;
      expect(end.kind, file).toBe("notLive");
    }
    expect(env.services.liveDocs.size()).toBe(before);
  });

  it("turns a downgraded member's document read-only within 2 s, losing nothing saved", async () => {
    const person = await signUpPerson(env.services, "Dora");
    await addMember(env.services.db, teamId, person.id, "member");
    people.dora = person;
    await workspace.write("downgrade.txt", "saved\n");
    const dora = await connected("dora", "downgrade.txt");
    const owner = await connected("owner", "downgrade.txt");
    expect(dora.state?.readOnly).toBe(false);
    const at = Date.now();
    await ownerCaller.team.setRole({ teamId, userId: person.id, role: "viewer" });
    await until(() => dora.state?.readOnly === true, "Dora's document read-only", 5_000);
    expect(Date.now() - at).toBeLessThan(2_000);
    type(dora, 0, "sneaky ");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(owner.text.toString()).toBe("saved\n");
    expect(await disk("downgrade.txt")).toBe("saved\n");
  });

  it("closes a removed member's document socket within 2 s", async () => {
    const person = await signUpPerson(env.services, "Rita");
    await addMember(env.services.db, teamId, person.id, "member");
    people.rita = person;
    await workspace.write("revoke.txt", "x\n");
    const { connection, ended } = connect("rita", "revoke.txt");
    await until(() => connection.connected, "connected", 10_000);
    const removedAt = Date.now();
    await ownerCaller.team.removeMember({ teamId, userId: person.id });
    const end = await ended;
    expect(end.kind).toBe("accessEnded");
    expect(Date.now() - removedAt).toBeLessThan(2_000);
  });
});

describe("live documents through a view link, as an attacker", () => {
  let sessionId: string;
  let link: { id: string; token: string };

  beforeAll(async () => {
    const db = env.services.db;
    await workspace.write("linked.txt", "touched\n");
    await workspace.write("secret.env", "API_KEY=never-shared\n");
    sessionId = (
      await createSession(db, {
        projectId,
        title: "Linked",
        authorId: people.owner.id,
        model: "openai-compatible:none",
      })
    ).id;
    for (const file of ["linked.txt", "attacked.txt", "linked-swap.txt"]) await touch(file);
    link = await newLink();
  });

  const newLink = async (maker = people.owner.id) => {
    const made = await createShareLink(env.services.db, {
      sessionId,
      scope: "view",
      label: "view",
      createdById: maker,
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    return { id: made.link.id, token: made.token };
  };
  let calls = 0;
  /** The session's agent read `file`: the link may open it. */
  const touch = (file: string) =>
    env.services.agent.log.append(sessionId, "tool_call", {
      turnId: "t1",
      stepId: `t1:${++calls}`,
      toolCallId: `call_${calls}`,
      toolName: "read_file",
      input: { path: file },
      title: `Read ${file}`,
      kind: "read",
    });

  const linkUrl = (file: string, token = link.token, session = sessionId) =>
    linkedLiveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, { token, sessionId: session }, file);
  /** A guest's socket: no cookie, only the link. */
  const guest = (url: string) => new WebSocket(url, { headers: { origin: server.url } }) as unknown as SocketLike;

  it("watches people's typing and cursors live, read-only", async () => {
    const owner = await connected("owner", "linked.txt");
    const viewer = new LiveDocConnection(linkUrl("linked.txt"), guest);
    open.push(viewer);
    await until(() => viewer.connected, "the link's viewer connected", 10_000);
    expect(viewer.state?.readOnly).toBe(true);
    type(owner, 0, "live ");
    owner.awareness.setLocalStateField("selection", { anchor: null, head: null });
    await until(() => viewer.text.toString() === "live touched\n", "the owner's typing seen through the link", 5_000);
    await until(() => [...viewer.peers().values()].some((peer) => peer.user.name === "Olive"), "Olive's cursor", 5_000);
    await until(() => [...owner.peers().values()].some((peer) => peer.user.name === "Guest"), "the guest seen", 5_000);
  });

  it("refuses an update and a save sent on a view link's socket, and changes nothing", async () => {
    await workspace.write("attacked.txt", "touched\n");
    const owner = await connected("owner", "attacked.txt");
    await until(() => owner.text.toString() === "touched\n", "the owner's copy", 5_000);
    for (const frame of ["update", "save"] as const) {
      const raw = new WebSocket(linkUrl("attacked.txt"), { headers: { origin: server.url } });
      const closed = new Promise<number>((resolve) => raw.on("close", (code) => resolve(code)));
      await new Promise((resolve) => raw.once("message", resolve));
      if (frame === "update") {
        const forged = new Y.Doc();
        forged.getText("content").insert(0, "pwned ");
        const update = Y.encodeStateAsUpdate(forged);
        raw.send(new Uint8Array([LiveMessage.sync, 2, ...varUint(update.length), ...update]));
      } else raw.send(new Uint8Array([LiveMessage.save]));
      expect(await closed, frame).toBe(4400);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(owner.text.toString()).toBe("touched\n");
    expect(await disk("attacked.txt")).toBe("touched\n");
  });

  it("opens only its session's files: not an untouched one, not a touched name linked to one, not with a forged token or another session", async () => {
    await fs.symlink("secret.env", path.join(workspace.root, "linked-swap.txt"));
    for (const file of ["secret.env", "linked-swap.txt", "../outside.txt"]) {
      const connection = new LiveDocConnection(linkUrl(file), guest);
      open.push(connection);
      const end = await new Promise<LiveDocEnd>((resolve) => connection.onEnd(resolve));
      expect(end.kind, file).toBe("notLive");
      expect(connection.text.toString(), file).toBe("");
    }
    // A forged token, or the token with another session's id, is refused before upgrading.
    const status = (url: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers: { origin: server.url } });
        ws.on("open", () => (resolve(101), ws.close()));
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("error", () => resolve(0));
      });
    expect(await status(linkUrl("linked.txt", "x".repeat(43)))).toBe(404);
    expect(await status(linkUrl("linked.txt", link.token, crypto.randomUUID()))).toBe(404);
  });

  it("ends the socket when the link is revoked", async () => {
    const revoked = await newLink();
    const viewer = new LiveDocConnection(linkUrl("linked.txt", revoked.token), guest);
    open.push(viewer);
    const ended = new Promise<LiveDocEnd>((resolve) => viewer.onEnd(resolve));
    await until(() => viewer.connected, "connected", 10_000);
    const at = Date.now();
    await ownerCaller.share.revoke({ sessionId, linkId: revoked.id });
    expect((await ended).kind).toBe("accessEnded");
    expect(Date.now() - at).toBeLessThan(2_000);
  });

  it("ends the socket of a link whose maker is removed from the team, and opens no other through it", async () => {
    const maker = await signUpPerson(env.services, "Mallory");
    await addMember(env.services.db, teamId, maker.id, "member");
    const hers = await newLink(maker.id);
    const viewer = new LiveDocConnection(linkUrl("linked.txt", hers.token), guest);
    open.push(viewer);
    const ended = new Promise<LiveDocEnd>((resolve) => viewer.onEnd(resolve));
    await until(() => viewer.connected, "connected", 10_000);
    const at = Date.now();
    await ownerCaller.team.removeMember({ teamId, userId: maker.id });
    const within = new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 3_000));
    expect(await Promise.race([ended.then((end) => end.kind), within])).toBe("accessEnded");
    expect(Date.now() - at).toBeLessThan(2_000);
    const again = await new Promise<number>((resolve) => {
      const ws = new WebSocket(linkUrl("linked.txt", hers.token), { headers: { origin: server.url } });
      ws.on("open", () => (resolve(101), ws.close()));
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => resolve(0));
    });
    expect(again).toBe(404);
  });
});

function varUint(n: number): number[] {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
