import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import { applyStreamItem, emptyLiveLog, type LiveLog, type SessionEvent } from "@/lib/session-events";
import { foldTranscript } from "@/lib/session-transcript";
import { createTestDatabase } from "@/server/test/database";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import { connect, readLog, signUp, startInstance, type Instance } from "@/server/test/cluster-instances";
import { until } from "@/server/test/until";

// Several real Tandem processes on one Postgres and one data directory, killed with SIGKILL:
// the turn of a killed instance goes on at another within 10 s, each tool call runs once, a
// scheduled task fires once, and a shell command cut off mid-run is never run again silently,
// whether the turn is taken over, resumed or answered with a new message.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let model: ModelServer;
let dataDir: string;
const running: Instance[] = [];
const started: Instance[] = [];
let cookie = "";
let projectId = "";

async function boot(name: string, cluster: boolean) {
  const instance = await startInstance({ name, dataDir, databaseUrl: database.url, modelUrl: model.url, cluster });
  running.push(instance);
  started.push(instance);
  return instance;
}

async function kill9(instance: Instance) {
  await instance.kill9();
  running.splice(running.indexOf(instance), 1);
}

/** The account and the project (yolo: the agent's commands run without asking) that every test uses. */
async function ensureProject(instance: Instance) {
  if (projectId) return;
  cookie = await signUp(instance, "cluster@example.com", "Kai");
  const client = connect(instance, cookie);
  projectId = (await client.trpc.project.create.mutate({ name: "Cluster" })).id;
  await client.trpc.agent.updateSettings.mutate({ projectId, approvalMode: "yolo" });
  client.close();
}

const workspaceFile = (name: string, project = projectId) => path.join(dataDir, "workspaces", project, name);
const readIfThere = async (file: string) => (existsSync(file) ? fs.readFile(file, "utf8") : "");
const of = <T extends SessionEvent["type"]>(log: LiveLog, type: T) =>
  log.events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);
const contiguous = (log: LiveLog) => log.events.map((e) => e.seq).every((seq, i) => seq === i + 1);
const finishedWith = (reason: string) => (log: LiveLog) =>
  of(log, "turn_finished").some((e) => e.payload.reason === reason) && log.events.at(-1)?.type === "status";

/** A command that appends its line, then is still running when its instance is killed. */
const appendCall = (id: string, file: string) => ({
  id,
  name: "shell",
  arguments: { command: `echo line >> ${file}; sleep 90`, timeout: 120 },
});

beforeAll(async () => {
  database = await createTestDatabase();
  model = await startModelServer({});
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-cluster-"));
}, 60_000);

beforeEach(() => {
  onTestFailed(() => {
    for (const instance of started) console.error(`--- ${instance.name} ---\n${instance.output().slice(-4000)}`);
    console.error(
      `--- model requests ---\n${model.requests.map((r) => `reply ${r.reply}: ${JSON.stringify(r.messages.at(-1)).slice(0, 200)}`).join("\n")}`,
    );
  });
});

afterAll(async () => {
  for (const instance of [...running]) await kill9(instance);
  await model?.close();
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("several instances, one killed with -9", () => {
  let a: Instance;
  let b: Instance;

  it("fires a scheduled task once with two instances running", async () => {
    a = await boot("A", true);
    b = await boot("B", true);
    await ensureProject(a);
    const onA = connect(a, cookie);
    model.load({
      replies: [
        {
          match: "Plan a ping",
          toolCalls: [
            {
              id: "call_schedule",
              name: "schedule_task",
              arguments: {
                taskPayload: "Scheduled ping",
                timeExpression: "in 3 seconds",
                humanReadableDescription: "ping",
              },
            },
          ],
        },
        { match: "Scheduled task", text: "Scheduled." },
        { match: "Scheduled ping", text: "pong" },
        { match: "Scheduled ping", text: "pong again" },
      ],
    });
    const session = await onA.trpc.session.create.mutate({ projectId });
    await onA.trpc.session.send.mutate({ sessionId: session.id, text: "Plan a ping" });
    await until(
      async () => (await onA.trpc.session.get.query({ sessionId: session.id })).status === "waiting_approval",
      "the request to schedule",
    );
    const { pendingApprovals } = await onA.trpc.session.get.query({ sessionId: session.id });
    await onA.trpc.approval.respond.mutate({ approvalId: pendingApprovals[0]!.id, decision: "approve" });
    const runs = async () => (await onA.trpc.extensions.schedules.query({ projectId }))[0]?.runs ?? [];
    await until(async () => (await runs()).length > 0, "the scheduled run", 60_000);
    const [run] = await runs();
    await readLog(onA, run!.sessionId!, finishedWith("completed"));
    // Both instances poll the queue every 2 s: a few rounds more, and still one run.
    await new Promise((r) => setTimeout(r, 8_000));
    expect(await runs()).toHaveLength(1);
    expect(
      (await onA.trpc.session.list.query({ projectId })).filter((s) => s.title === "Scheduled: ping"),
    ).toHaveLength(1);
    expect(model.requests.filter((r) => r.reply === 3)).toHaveLength(0); // "pong again": no second run
    onA.close();
  }, 400_000);

  it("continues the turn of a killed instance on another within 10 s, each tool call once, seqs contiguous", async () => {
    a ??= await boot("A", true); // when run alone (-t)
    b ??= await boot("B", true);
    await ensureProject(a);
    model.load({
      replies: [
        {
          match: "Build the notes",
          toolCalls: [{ id: "call_notes", name: "shell", arguments: { command: "echo started >> steps.txt" } }],
        },
        { match: "Exit code: 0", text: "Writing the notes now, slowly and at length ", delayMs: 15, hang: true },
        { match: "Also list the steps", text: "Continued and finished." },
      ],
    });
    const onA = connect(a, cookie);
    const onB = connect(b, cookie);
    const session = await onA.trpc.session.create.mutate({ projectId });
    const onBLive = emptyLiveLog();
    const viewer = onB.trpc.session.events.subscribe(
      { sessionId: session.id, afterSeq: 0 },
      { onData: (tracked) => applyStreamItem(onBLive, tracked.data) },
    );
    await onA.trpc.session.send.mutate({ sessionId: session.id, text: "Build the notes" });
    await until(() => model.requests.length >= 2, "the model's second step on A");
    await until(
      async () =>
        (await onA.trpc.session.get.query({ sessionId: session.id })).status === "running" &&
        (await readIfThere(workspaceFile("steps.txt"))) === "started\n",
      "the tool's effect",
    );
    await new Promise((r) => setTimeout(r, 300)); // some text streamed and stored
    // A message through the instance that does not run the turn: left for the running turn to read.
    await onB.trpc.session.send.mutate({ sessionId: session.id, text: "Also list the steps" });

    await kill9(a);
    onA.close();
    await until(
      () => b.output().includes(`took over the turn of session ${session.id}`),
      "B to take the turn over",
      10_000,
    );

    const log = await readLog(onB, session.id, finishedWith("completed"));
    await until(() => of(onBLive, "turn_finished").length > 0, "the viewer on B to see the turn end");
    viewer.unsubscribe();
    expect(contiguous(log)).toBe(true);
    expect(of(log, "turn_started")).toHaveLength(1); // continued, not started again: the message sent through B is answered in it
    expect(of(log, "tool_call")).toHaveLength(1);
    expect(of(log, "tool_started")).toHaveLength(1);
    expect(of(log, "tool_result")).toHaveLength(1);
    expect(of(log, "turn_finished").map((e) => e.payload.reason)).toEqual(["completed"]);
    expect(await readIfThere(workspaceFile("steps.txt"))).toBe("started\n");
    expect(foldTranscript(log.events).items.at(-1)).toMatchObject({
      kind: "assistant",
      text: "Continued and finished.",
    });
    expect(onBLive.events.map((e) => e.seq)).toEqual(log.events.map((e) => e.seq));
    expect((await onB.trpc.session.get.query({ sessionId: session.id })).status).toBe("idle");
    onB.close();
  }, 400_000);

  it("stops a turn when it is cancelled through an instance that does not run it", async () => {
    const c = await boot("C", true);
    model.load({ replies: [{ match: "Talk at length", text: "On and on and on ", delayMs: 15, hang: true }] });
    const onB = connect(b, cookie);
    const onC = connect(c, cookie);
    const session = await onB.trpc.session.create.mutate({ projectId });
    await onB.trpc.session.send.mutate({ sessionId: session.id, text: "Talk at length" });
    await until(() => model.requests.some((r) => r.reply === 0), "the model to be asked");
    await onC.trpc.session.cancel.mutate({ sessionId: session.id });
    const log = await readLog(onC, session.id, finishedWith("cancelled"));
    expect(contiguous(log)).toBe(true);
    expect(of(log, "turn_finished").map((e) => e.payload.reason)).toEqual(["cancelled"]);
    expect((await onC.trpc.session.get.query({ sessionId: session.id })).status).toBe("idle");
    onB.close();
    onC.close();
  }, 400_000);

  it("takeover: a shell command cut off mid-run waits for a person instead of running again, even in yolo mode", async () => {
    const c = running.find((i) => i.name === "C")!;
    model.load({
      replies: [
        { match: "Append a line (takeover)", toolCalls: [appendCall("call_t", "log-t.txt")] },
        { match: "interrupted mid-run", text: "The append was cut off." },
      ],
    });
    const onB = connect(b, cookie);
    const session = await onB.trpc.session.create.mutate({ projectId });
    await onB.trpc.session.send.mutate({ sessionId: session.id, text: "Append a line (takeover)" });
    await until(async () => (await readIfThere(workspaceFile("log-t.txt"))) === "line\n", "the command's line");

    await kill9(b);
    onB.close();
    const onC = connect(c, cookie);
    await until(
      () => c.output().includes(`took over the turn of session ${session.id}`),
      "C to take the turn over",
      10_000,
    );
    await until(
      async () => (await onC.trpc.session.get.query({ sessionId: session.id })).status === "waiting_approval",
      "the question to a person",
    );
    let log = await readLog(onC, session.id, (l) => of(l, "approval_requested").length > 0);
    expect(of(log, "approval_requested")[0]!.payload.reason).toMatch(/interrupted mid-run/);
    expect(await readIfThere(workspaceFile("log-t.txt"))).toBe("line\n");
    expect(await database.db.turnJob.count({ where: { sessionId: session.id } })).toBe(0); // a waiting approval holds no lease

    const { pendingApprovals } = await onC.trpc.session.get.query({ sessionId: session.id });
    await onC.trpc.approval.respond.mutate({ approvalId: pendingApprovals[0]!.id, decision: "reject" });
    log = await readLog(onC, session.id, finishedWith("completed"));
    expect(contiguous(log)).toBe(true);
    expect(of(log, "tool_result")[0]!.payload).toMatchObject({
      toolCallId: "call_t",
      ok: false,
      errorCode: "INTERRUPTED",
    });
    expect(await readIfThere(workspaceFile("log-t.txt"))).toBe("line\n");
    onC.close();
  }, 400_000);

  it("hands a running turn to another instance when its instance shuts down, instead of cancelling it", async () => {
    const c = running.find((i) => i.name === "C")!;
    const d = await boot("D", true);
    model.load({
      replies: [
        { match: "Keep going", text: "Going on and on ", delayMs: 15, hang: true },
        { match: "Keep going", text: "Still going, elsewhere." },
      ],
    });
    const onC = connect(c, cookie);
    const session = await onC.trpc.session.create.mutate({ projectId });
    await onC.trpc.session.send.mutate({ sessionId: session.id, text: "Keep going" });
    await until(() => model.requests.some((r) => r.reply === 0), "the model to be asked");
    onC.close();
    await c.terminate();
    running.splice(running.indexOf(c), 1);
    await until(
      () => d.output().includes(`took over the turn of session ${session.id}`),
      "D to take the turn over",
      10_000,
    );
    const onD = connect(d, cookie);
    const log = await readLog(onD, session.id, finishedWith("completed"));
    expect(contiguous(log)).toBe(true);
    expect(of(log, "turn_started")).toHaveLength(1);
    expect(of(log, "turn_finished").map((e) => e.payload.reason)).toEqual(["completed"]);
    expect(foldTranscript(log.events).items.at(-1)).toMatchObject({
      kind: "assistant",
      text: "Still going, elsewhere.",
    });
    onD.close();
    await kill9(d);
  }, 400_000);

  it("one instance alone: after kill -9, resume asks before running the command again, and a new message tells the model it was interrupted", async () => {
    model.load({
      replies: [
        { match: "Append a line (resume)", toolCalls: [appendCall("call_r", "log-r.txt")] },
        { match: "Append a line (send)", toolCalls: [appendCall("call_s", "log-s.txt")] },
        { match: "interrupted mid-run", text: "The append was cut off." },
        { match: "What happened?", text: "Noted: the earlier append may have run." },
      ],
    });
    const first = await boot("single", false);
    await ensureProject(first);
    let client = connect(first, cookie);
    // Commands that change things run one at a time per workspace: the second cut-off command is in a project of its own.
    const other = await client.trpc.project.create.mutate({ name: "Cluster too" });
    await client.trpc.agent.updateSettings.mutate({ projectId: other.id, approvalMode: "yolo" });
    const resumed = await client.trpc.session.create.mutate({ projectId });
    const sent = await client.trpc.session.create.mutate({ projectId: other.id });
    await client.trpc.session.send.mutate({ sessionId: resumed.id, text: "Append a line (resume)" });
    await client.trpc.session.send.mutate({ sessionId: sent.id, text: "Append a line (send)" });
    await until(
      async () =>
        (await readIfThere(workspaceFile("log-r.txt"))) === "line\n" &&
        (await readIfThere(workspaceFile("log-s.txt", other.id))) === "line\n",
      "both commands' lines",
    );

    await kill9(first);
    client.close();
    const second = await boot("single again", false);
    client = connect(second, cookie);
    expect((await client.trpc.session.get.query({ sessionId: resumed.id })).status).toBe("interrupted");

    await client.trpc.session.resume.mutate({ sessionId: resumed.id });
    await until(
      async () => (await client.trpc.session.get.query({ sessionId: resumed.id })).status === "waiting_approval",
      "the question before a re-run",
    );
    const asked = await readLog(client, resumed.id, (l) => of(l, "approval_requested").length > 0);
    expect(of(asked, "approval_requested").at(-1)!.payload.reason).toMatch(/interrupted mid-run/);
    expect(await readIfThere(workspaceFile("log-r.txt"))).toBe("line\n");

    await client.trpc.session.send.mutate({ sessionId: sent.id, text: "What happened?" });
    const log = await readLog(client, sent.id, finishedWith("completed"));
    expect(contiguous(log)).toBe(true);
    const cut = of(log, "tool_result").find((e) => e.payload.toolCallId === "call_s")!.payload;
    expect(cut.llm).toMatch(/interrupted mid-run/);
    const request = model.requests.find((r) => JSON.stringify(r.messages.at(-1)).includes("What happened?"))!;
    expect(
      JSON.stringify(request.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_s")?.content),
    ).toMatch(/interrupted mid-run/);
    expect(await readIfThere(workspaceFile("log-s.txt", other.id))).toBe("line\n");
    client.close();
  }, 400_000);
});
