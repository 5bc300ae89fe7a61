import fs from "node:fs/promises";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listEvents } from "@/server/db/repositories/session-events";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { EVERYTHING } from "@/server/test/everything-mcp-server";
import { freePort } from "@/scripts/free-port.mjs";

// The agent with a project's extensions, each against its real counterpart started here: the MCP
// "everything" server over stdio, named agents and a workflow in the workspace, the pg-boss
// scheduler with a short polling clock, and a local SMTP server that captures the mail.

type Mail = { from: string; to: string[]; data: string };
const mails: Mail[] = [];
let smtp: SMTPServer;
let h: Awaited<ReturnType<typeof createAgentHarness>>;

beforeAll(async () => {
  const port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (c: Buffer) => (data += c.toString()));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(port, "127.0.0.1", r));
  h = await createAgentHarness({
    extensions: {
      schedulerPollingSeconds: 0.5,
      deferToolsOver: 3,
      smtp: {
        host: "127.0.0.1",
        port,
        secure: false,
        user: undefined,
        password: undefined,
        from: "tandem@example.com",
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.dispose();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const workspace = () => h.env.services.files.open(h.project.id);
async function put(rel: string, content: string) {
  const root = (await workspace()).root;
  await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await fs.writeFile(path.join(root, rel), content);
}
const extensions = () => h.env.services.extensions!;

describe("MCP tools in a turn", () => {
  it("defers schemas behind tool_search; a loaded untrusted tool asks for approval, then runs", async () => {
    const saved = await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      mcpServersText: JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    });
    expect(saved).toEqual({ ok: true });
    const status = await h.caller.extensions.status({ projectId: h.project.id });
    expect(status.servers).toMatchObject([{ name: "everything", status: "connected", transport: "stdio" }]);
    expect(status.servers[0]!.tools.length).toBeGreaterThan(3);

    const session = await h.newSession({
      replies: [
        { toolCalls: [{ name: "tool_search", arguments: { query: "ECHO" } }] },
        { match: "Loaded", toolCalls: [{ name: "everything__echo", arguments: { message: "hi from MCP" } }] },
        { match: "Echo: hi from MCP", text: "The server echoed it." },
      ],
    });
    let events = await h.send(session.id, "Use the echo tool");
    const [first, second] = h.model.requests.slice(-2);
    expect(first!.tools).toContain("tool_search");
    expect(first!.tools).not.toContain("everything__echo");
    expect(second!.tools).toContain("everything__echo");
    expect(only(events, "tool_result")[0]!.payload.llm).toContain('"message"');

    const requested = only(events, "approval_requested")[0]!;
    expect(requested.payload).toMatchObject({
      toolName: "everything__echo",
      reason: "everything__echo always asks for approval.",
    });
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.waitFor(async () => (await h.status(session.id)) === "idle");
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(only(events, "tool_result").at(-1)!.payload).toMatchObject({
      toolName: "everything__echo",
      ok: true,
      llm: "Echo: hi from MCP",
    });
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("The server echoed it.");
  }, 60_000);

  it("a deferred tool the model calls by name without loading it still runs (after approval)", async () => {
    const session = await h.newSession({
      replies: [{ toolCalls: [{ name: "everything__get-sum", arguments: { a: 1, b: 2 } }] }],
    });
    const events = await h.send(session.id, "Add without searching");
    expect(h.model.requests.at(-1)!.tools).not.toContain("everything__get-sum");
    expect(only(events, "approval_requested")[0]!.payload).toMatchObject({
      toolName: "everything__get-sum",
      input: { a: 1, b: 2 },
    });
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("shows malformed settings as problems and keeps the last good configuration", async () => {
    const bad = await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      mcpServersText: '{ "mcpServers": { "x": { "command": "a" }, } }',
    });
    expect(bad).toMatchObject({
      ok: false,
      problems: [{ path: "(json)", message: expect.stringContaining("Malformed JSON") }],
    });
    expect((await h.caller.extensions.settings({ projectId: h.project.id })).mcpServersText).toContain("everything");
  });
});

describe("named agents, catalog and background delegation", () => {
  it("lists agents in the catalog and reports a background delegation back into the session", async () => {
    await put(
      ".tandem/agents/reviewer.md",
      "---\ndescription: Reviews a change for risk\ntools: [echo]\nmax_turns: 3\n---\nBe terse. Name the riskiest line.\n",
    );
    await put(".tandem/skills/release/SKILL.md", "---\ndescription: How we cut a release\n---\nTag, then push.\n");
    const parent = await h.newSession({
      replies: [
        { match: "Review in background", toolCalls: [{ name: "catalog", arguments: {} }] },
        {
          match: "reviewer: Reviews a change",
          toolCalls: [
            {
              name: "delegate",
              arguments: {
                agent: "reviewer",
                task: "Review app.ts",
                context: "It changed the login flow.",
                background: true,
              },
            },
          ],
        },
        { match: "Started in the background", text: "The reviewer is on it." },
        { match: "Be terse", text: "Line 12 is risky." },
        { match: "Line 12 is risky", text: "The reviewer says line 12 is risky." },
      ],
    });
    await h.send(parent.id, "Review in background");
    await h.waitFor(
      async () =>
        only(await h.events(parent.id), "assistant_message").some(
          (e) => e.payload.text === "The reviewer says line 12 is risky.",
        ),
      20_000,
    );
    const events = await h.events(parent.id);
    const catalog = only(events, "tool_result").find((e) => e.payload.toolName === "catalog")!.payload.llm;
    expect(catalog).toContain("- reviewer: Reviews a change for risk");
    expect(catalog).toContain("- release: How we cut a release");
    const report = only(events, "user_message").at(-1)!.payload;
    expect(report).toMatchObject({ authorName: "background agent" });
    expect(report.text).toContain('The background agent "reviewer"');
    const child = (await h.caller.session.get({ sessionId: parent.id })).children[0]!;
    expect(child).toMatchObject({ allowedTools: ["echo"], maxSteps: 3 });
    const childFirst = only(await listEvents(h.env.services.db, child.id), "user_message")[0]!.payload.text;
    expect(childFirst).toContain("Be terse. Name the riskiest line.");
    expect(childFirst).toContain("It changed the login flow.");
  }, 30_000);
});

describe("workflows", () => {
  it("runs prompt, shell and parallel steps from the Run button, with outputs flowing to later steps", async () => {
    await put(
      ".tandem/workflows/ship.yaml",
      [
        "description: Build, check in parallel, summarize",
        "inputs:",
        "  target: { description: What to ship }",
        "steps:",
        "  - id: build",
        "    run: echo built {{ inputs.target }}",
        "  - parallel:",
        "      - id: review",
        "        prompt: 'Workflow review of: {{ steps.build.output }}'",
        "      - id: count",
        "        run: echo 3 files",
        "  - id: summary",
        "    prompt: 'Workflow summary: {{ steps.review.output }} / {{ steps.count.output }}'",
      ].join("\n"),
    );
    const listed = await h.caller.extensions.workflows({ projectId: h.project.id });
    expect(listed.workflows.map((w) => w.name)).toEqual(["ship"]);
    h.model.load({
      replies: [
        { match: "Workflow review of: built web; rm -rf x", text: "Review: fine." },
        { match: "Workflow summary: Review: fine. / 3 files", text: "Summary: ship it." },
      ],
    });
    const { sessionId } = await h.caller.extensions.runWorkflow({
      projectId: h.project.id,
      workflow: "ship",
      inputs: { target: "web; rm -rf x" },
    });
    await h.waitFor(async () => only(await h.events(sessionId), "turn_finished").length > 0, 20_000);
    const result = only(await h.events(sessionId), "tool_result")[0]!.payload;
    expect(result).toMatchObject({ toolName: "workflow", ok: true });
    expect(result.llm).toContain("Workflow ship finished: 4 steps.");
    expect(result.llm).toContain("## build (run, exit 0) ok\n\nbuilt web; rm -rf x");
    expect(result.llm).toContain("Summary: ship it.");
    expect(only(await h.events(sessionId), "subagent_started")).toHaveLength(2);
  }, 30_000);
});

describe("scheduled tasks", () => {
  it("asks for approval, stores a durable job, and the run fires as a new session linked from the schedule", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "Remind me",
          toolCalls: [
            {
              name: "schedule_task",
              arguments: {
                taskPayload: "Scheduled hello check",
                timeExpression: "in 1 second",
                humanReadableDescription: "Say hello",
              },
            },
          ],
        },
        { match: "Scheduled task", text: "Scheduled." },
        { match: "Scheduled hello check", text: "Hello from the schedule." },
      ],
    });
    const events = await h.send(session.id, "Remind me");
    const requested = only(events, "approval_requested")[0]!;
    expect(requested.payload.toolName).toBe("schedule_task");
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.waitFor(
      async () => (await h.caller.extensions.schedules({ projectId: h.project.id }))[0]?.runs.length === 1,
      20_000,
    );
    const [task] = await h.caller.extensions.schedules({ projectId: h.project.id });
    expect(task).toMatchObject({ description: "Say hello", status: "done", originSessionId: session.id });
    const runSession = task!.runs[0]!.sessionId!;
    await h.waitFor(async () => only(await h.events(runSession), "assistant_message").length > 0, 10_000);
    expect(only(await h.events(runSession), "assistant_message")[0]!.payload.text).toBe("Hello from the schedule.");
  }, 40_000);

  it("a run keeps the model it was scheduled with, and a run waiting for an approval shows so on the schedule", async () => {
    h.model.load({
      replies: [
        {
          match: "Remind me to write",
          toolCalls: [
            {
              name: "schedule_task",
              arguments: {
                taskPayload: "Scheduled write check",
                timeExpression: "in 1 second",
                humanReadableDescription: "Write later",
              },
            },
          ],
        },
        { match: "Scheduled task", text: "Scheduled." },
        {
          match: "Scheduled write check",
          toolCalls: [{ name: "write", arguments: { path: "later.txt", content: "later" } }],
        },
      ],
    });
    const session = await h.caller.session.create({ projectId: h.project.id, model: "openai-compatible:second" });
    const events = await h.send(session.id, "Remind me to write");
    const requested = only(events, "approval_requested")[0]!;
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    const waiting = async () =>
      (await h.caller.extensions.schedules({ projectId: h.project.id })).find((t) => t.description === "Write later")
        ?.runs[0];
    await h.waitFor(async () => (await waiting())?.sessionStatus === "waiting_approval", 20_000);
    const runSession = (await waiting())!.sessionId!;
    expect((await h.caller.session.get({ sessionId: runSession })).model).toBe("openai-compatible:second");
    const runRequest = h.model.requests.find((r) => JSON.stringify(r.messages).includes("Scheduled write check"))!;
    expect(runRequest.model).toBe("second");
    await h.caller.session.cancel({ sessionId: runSession });
  }, 40_000);

  it("reads a schedule in the sender's browser time zone, stores it with the task and names it to the model", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "Standup in New York",
          toolCalls: [
            {
              name: "schedule_task",
              arguments: {
                taskPayload: "Write the standup notes",
                timeExpression: "every weekday at 9",
                humanReadableDescription: "NY standup",
              },
            },
          ],
        },
        { match: "Scheduled task", text: "Scheduled." },
      ],
    });
    await expect(
      h.caller.session.send({ sessionId: session.id, text: "Standup in New York", timeZone: "Mars/Olympus_Mons" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await h.caller.session.send({ sessionId: session.id, text: "Standup in New York", timeZone: "America/New_York" });
    await h.agent.idle(session.id);
    const requested = only(await h.events(session.id), "approval_requested")[0]!;
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    const task = (await h.caller.extensions.schedules({ projectId: h.project.id })).find(
      (t) => t.description === "NY standup",
    )!;
    expect(task).toMatchObject({ cron: "0 9 * * 1-5", timezone: "America/New_York", status: "active" });
    // 9:00 on New York's clock, whatever the server's zone: 14:00 UTC in winter, 13:00 in summer.
    const clock = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/New_York",
      hour: "numeric",
      minute: "numeric",
      hourCycle: "h23",
      weekday: "short",
    });
    expect(clock.format(task.nextRunAt!)).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
    const result = only(await h.events(session.id), "tool_result")[0]!.payload;
    expect(result.llm).toMatch(
      /cron `0 9 \* \* 1-5` in America\/New_York\), next run \d{4}-\d\d-\d\d 09:00 \(America\/New_York, 1[34]:00 UTC\)/,
    );
    await h.caller.extensions.cancelSchedule({ projectId: h.project.id, taskId: task.id });
  });

  it("pauses, resumes and cancels a recurring schedule", async () => {
    const task = await extensions().scheduler.tool.schedule(
      { projectId: h.project.id, sessionId: "s", userId: h.user.id },
      { taskPayload: "x", timeExpression: "every weekday at 9", description: "Standup notes" },
    );
    expect(task.cron).toBe("0 9 * * 1-5");
    const id = { projectId: h.project.id, taskId: task.id };
    expect(await h.caller.extensions.pauseSchedule(id)).toMatchObject({ status: "paused", jobId: null });
    expect(await h.caller.extensions.resumeSchedule(id)).toMatchObject({ status: "active", jobId: expect.any(String) });
    expect(await h.caller.extensions.cancelSchedule(id)).toMatchObject({ status: "cancelled" });
    await expect(h.caller.extensions.pauseSchedule(id)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("send_email", () => {
  it("always asks, showing the whole message, then sends it through SMTP", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "Email the team",
          toolCalls: [
            {
              name: "send_email",
              arguments: { to: "team@example.com", subject: "Release 1.2", body: "Release 1.2 is out.\nThanks!" },
            },
          ],
        },
        { match: "Sent to", text: "Emailed." },
      ],
    });
    const events = await h.send(session.id, "Email the team");
    const requested = only(events, "approval_requested")[0]!;
    expect(requested.payload.input).toEqual({
      to: "team@example.com",
      subject: "Release 1.2",
      body: "Release 1.2 is out.\nThanks!",
    });
    expect(mails).toHaveLength(0);
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.waitFor(() => mails.length === 1, 10_000);
    expect(mails[0]).toMatchObject({ from: "tandem@example.com", to: ["team@example.com"] });
    expect(mails[0]!.data).toContain("Subject: Release 1.2");
    expect(mails[0]!.data).toContain("Release 1.2 is out.");
  }, 30_000);
});
