import fs from "node:fs/promises";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { createTeam } from "@/server/db/repositories/teams";
import { setSetting } from "@/server/db/repositories/settings";
import { startServer, type RunningServer } from "@/server/start-server";
import { createAgentHarness } from "@/server/test/agent-harness";
import { signUpPerson } from "@/server/test/services";
import { until } from "@/server/test/until";
import { LiveDocConnection, type SocketLike } from "@/lib/live-doc-connection";
import { liveDocSocketUrl, type LivePeer } from "@/lib/live-doc-protocol";
import type { Workspace } from "@/server/workspace";

// The agent as a live participant: the real agent loop (scripted model, the real edit tools)
// edits a function of a file a person has open live and is typing in elsewhere. The edit reaches
// the person's document at once with the agent's cursor, their unsaved typing stays, saving
// writes both, and the turn's review shows only what the agent changed.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let server: RunningServer;
let person: { cookie: string; id: string };
const callerFor = createCallerFactory(appRouter);
let caller: ReturnType<typeof callerFor>;
let projectId: string;
let workspace: Workspace;
const open: LiveDocConnection[] = [];

const SOURCE = [
  "export function area(width: number, height: number) {",
  "  return width * height;",
  "}",
  "",
  "export function greet(name: string) {",
  '  return "hello " + name;',
  "}",
  "",
].join("\n");

beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true });
  const services = { ...h.env.services, config: { ...h.env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  await setSetting(h.env.services.db, "signupMode", "open");
  person = await signUpPerson(h.env.services, "Pia");
  caller = callerFor(h.env.context((await findUser(h.env.services.db, person.id))!));
  const team = await createTeam(h.env.services.db, { name: "Pia's", ownerId: person.id });
  projectId = (await caller.project.create({ name: "Agent live", teamId: team.id })).id;
  await caller.agent.updateSettings({ projectId, approvalMode: "yolo" });
  workspace = await h.env.services.files.open(projectId);
}, 60_000);

afterEach(() => {
  for (const connection of open.splice(0)) connection.destroy();
});

afterAll(async () => {
  await server?.close();
  await h?.dispose();
});

async function connected(file: string) {
  const url = liveDocSocketUrl({ protocol: "http:", host: new URL(server.url).host }, projectId, file);
  const socket = (at: string) =>
    new WebSocket(at, { headers: { cookie: person.cookie, origin: server.url } }) as unknown as SocketLike;
  const connection = new LiveDocConnection(url, socket);
  open.push(connection);
  await until(() => connection.connected, "connected", 10_000);
  return connection;
}

const agentPeers = (connection: LiveDocConnection) =>
  [...connection.peers().values()].filter((peer): peer is LivePeer & { agent: true } => peer.agent === true);

describe("the agent edits live", () => {
  it("puts its edit into the open document with its cursor, keeps the person's typing, and reviews only its own change", {
    timeout: 60_000,
  }, async () => {
    await workspace.write("shapes.ts", SOURCE);
    const pia = await connected("shapes.ts");
    // Pia types in greet() and does not save.
    const at = pia.text.toString().indexOf('"hello "');
    pia.text.insert(at + '"hello'.length, ", dear");
    await until(() => pia.state?.dirty === true, "Pia's typing unsaved", 5_000);
    let sawAgent: LivePeer | undefined;
    pia.awareness.on("change", () => (sawAgent ??= agentPeers(pia)[0]));

    const session = await caller.session.create({ projectId, title: "Rounding" });
    h.model.load({
      replies: [
        { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "shapes.ts" } }] },
        {
          toolCalls: [
            {
              id: "edit",
              name: "edit",
              arguments: {
                path: "shapes.ts",
                old_string: "  return width * height;",
                new_string: "  return Math.round(width * height);",
              },
            },
          ],
        },
        { text: "area() rounds now." },
      ],
    });
    await caller.session.send({ sessionId: session.id, text: "round area" });
    await until(() => pia.text.toString().includes("Math.round"), "the agent's edit in Pia's document", 15_000);
    // At once, not after the watcher's delay; and with the agent's cursor, named after its session.
    await until(() => sawAgent !== undefined, "the agent's cursor", 5_000);
    expect(sawAgent?.user.name).toBe("Agent · Rounding");
    expect(sawAgent?.selection).toBeDefined();
    await h.agent.idle(session.id);

    // Both changes in the document; the disk has the agent's alone until someone saves.
    expect(pia.text.toString()).toContain("Math.round(width * height)");
    expect(pia.text.toString()).toContain('"hello, dear "');
    const disk = () => fs.readFile(path.join(workspace.root, "shapes.ts"), "utf8");
    expect(await disk()).toBe(SOURCE.replace("width * height", "Math.round(width * height)"));

    // The turn's review: the agent's line, not Pia's.
    const review = await caller.review.file({ sessionId: session.id, path: "shapes.ts" });
    const changed = review.hunks.flatMap((hunk) => hunk.lines.filter((line) => !line.startsWith(" ")));
    expect(changed).toEqual(["-  return width * height;", "+  return Math.round(width * height);"]);

    // One save writes both.
    await pia.save();
    expect(await disk()).toContain("Math.round(width * height)");
    expect(await disk()).toContain('"hello, dear "');

    // The cursor fades after a few seconds.
    await until(() => agentPeers(pia).length === 0, "the agent's cursor gone", 10_000);
  });

  it("keeps the freshness rule: a person's save since the agent read the file makes it read again", {
    timeout: 60_000,
  }, async () => {
    await workspace.write("fresh.ts", "export const x = 1;\n");
    const pia = await connected("fresh.ts");
    const session = await caller.session.create({ projectId, title: "Fresh" });
    h.model.load({
      replies: [
        { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "fresh.ts" } }] },
        { text: "Read it." },
        {
          toolCalls: [
            { id: "edit", name: "edit", arguments: { path: "fresh.ts", old_string: "= 1", new_string: "= 2" } },
          ],
        },
        { text: "Tried." },
      ],
    });
    await caller.session.send({ sessionId: session.id, text: "read x" });
    await h.agent.idle(session.id);
    // Pia saves a change after the agent read the file, before it edits it.
    pia.text.insert(0, "// Pia\n");
    await pia.save();
    await caller.session.send({ sessionId: session.id, text: "set x" });
    await h.agent.idle(session.id);
    const results = (await h.events(session.id)).filter((e) => e.type === "tool_result");
    const edit = JSON.stringify(results.at(-1)?.payload);
    expect(edit).toMatch(/STALE_READ|changed since you last read it/);
    expect(await fs.readFile(path.join(workspace.root, "fresh.ts"), "utf8")).toBe("// Pia\nexport const x = 1;\n");
  });
});
