import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listEvents } from "@/server/db/repositories/session-events";
import { createAgentHarness, only } from "@/server/test/agent-harness";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("delegate", () => {
  it("runs 3 tasks in parallel as child sessions and returns one result per task", async () => {
    const parent = await h.newSession("delegate");
    const events = await h.send(parent.id, "Count the fruit");
    const started = only(events, "subagent_started");
    const finished = only(events, "subagent_finished");
    expect(started.map((e) => e.payload.index).sort()).toEqual([0, 1, 2]);
    expect(finished.map((e) => e.payload.ok)).toEqual([true, true, true]);

    const children = (await h.caller.session.get({ sessionId: parent.id })).children;
    expect(children).toHaveLength(3);
    for (const child of children) {
      expect(child.parentId).toBe(parent.id);
      expect(child.maxSteps).toBe(20);
      expect(child.allowedTools).toEqual(["echo", "slow_read", "session_search", "catalog", "status"]);
      const log = await listEvents(h.env.services.db, child.id);
      expect(only(log, "turn_finished")[0]!.payload.reason).toBe("completed");
    }
    // The three children's model requests were all made before any of them finished.
    const childRequests = h.model.requests.filter((r) =>
      r.messages.some((m) => String(m.content).startsWith("[delegating agent] Task ")),
    );
    expect(childRequests).toHaveLength(3);
    const firstFinish = Math.min(...finished.map((e) => e.createdAt.getTime()));
    expect(Math.max(...childRequests.map((r) => r.at))).toBeLessThan(firstFinish);
    // Children cannot delegate or ask people; they only see their allow-list.
    // (session_search, catalog and status are rarely used: their schemas wait behind tool_search.)
    for (const request of childRequests) expect(request.tools.sort()).toEqual(["echo", "slow_read", "tool_search"]);

    // The reports come back as readable text, in task order.
    const llm = only(events, "tool_result")[0]!.payload.llm;
    expect(llm).toMatch(
      /^## Task 1: done, session \S+\n\nAlpha result: 3 apples\.\n\n## Task 2: done, session \S+\n\nBeta result: 5 pears\.\n\n## Task 3: done/,
    );
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("In total: 3 apples, 5 pears and 7 plums.");
  });

  it("runs a batch larger than the cap 5 at a time, the rest waiting their turn, and reports every task in order", async () => {
    const names = Array.from({ length: 12 }, (_, n) => `Fleet task ${String(n + 1).padStart(2, "0")}.`);
    const parent = await h.newSession({
      replies: [
        {
          match: "Run the fleet",
          toolCalls: [{ name: "delegate", arguments: { tasks: names.map((prompt) => ({ prompt })) } }],
        },
        ...names.map((name, n) => ({ match: name, text: `Answer ${n + 1}.`, delayMs: 20 })),
        { match: "12 tasks, 5 at a time: 12 done", text: "All twelve answered." },
      ],
    });
    const events = await h.send(parent.id, "Run the fleet");
    // In the parent's log, never more than five children between their start and their finish.
    let running = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === "subagent_started") most = Math.max(most, ++running);
      if (event.type === "subagent_finished") running--;
    }
    expect(most).toBe(5);
    expect(only(events, "subagent_finished").map((e) => e.payload.ok)).toEqual(Array(12).fill(true));
    expect((await h.caller.session.get({ sessionId: parent.id })).children).toHaveLength(12);
    const llm = only(events, "tool_result")[0]!.payload.llm;
    expect(llm.startsWith("12 tasks, 5 at a time: 12 done, 0 stopped.")).toBe(true);
    const order = [...llm.matchAll(/## Task (\d+): done, session \S+\n\nAnswer (\d+)\./g)].map((m) => [m[1], m[2]]);
    expect(order).toEqual(names.map((_, n) => [String(n + 1), String(n + 1)]));
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("All twelve answered.");
  }, 60_000);

  it("honours a task's tool list and turn cap, and a child at its step limit is made to report", async () => {
    const parent = await h.newSession({
      replies: [
        {
          toolCalls: [
            {
              name: "delegate",
              arguments: { tasks: [{ prompt: "Task capped: loop on echo", tools: ["echo"], max_turns: 2 }] },
            },
          ],
        },
        { match: "Task capped", toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
        { match: "This is your last step (2 of 2)", text: "Report: echo said 1; nothing is left." },
        { match: "Report: echo said 1", text: "The child reported." },
      ],
    });
    const events = await h.send(parent.id, "Delegate a capped task");
    expect(only(events, "tool_result")[0]!.payload.llm).toMatch(
      /^## Task 1: done, session \S+\n\nReport: echo said 1; nothing is left\./,
    );
    const child = (await h.caller.session.get({ sessionId: parent.id })).children[0]!;
    expect(child.allowedTools).toEqual(["echo"]);
    const last = h.model.requests.find((r) => r.reply === 2)!;
    expect(last.toolChoice).toBe("none"); // tools still defined (the history refers to them), none callable
    expect(last.tools).toEqual(["echo"]);
    // The request to report is not in the child's log: only its answer is.
    const log = await listEvents(h.env.services.db, child.id);
    expect(only(log, "user_message")).toHaveLength(1);
    expect(only(log, "turn_finished")[0]!.payload.reason).toBe("completed");
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("The child reported.");
  });

  it("a read-only sub-agent is not told to plan, change, verify or expect approvals; the parent is told to check a child's claims", async () => {
    const parent = await h.newSession({
      replies: [
        { toolCalls: [{ name: "delegate", arguments: { task: "Task look: find the config" } }] },
        { match: "Task look", text: "It is in config.yaml." },
        { match: "config.yaml", text: "Found it." },
      ],
    });
    await h.send(parent.id, "Find the config");
    const system = (match: string) =>
      String(h.model.requests.find((r) => JSON.stringify(r.messages).includes(match))!.messages[0]!.content);
    const child = system("[delegating agent] Task look");
    expect(child).toContain("you cannot change files or run commands");
    for (const absent of [
      "todo_write",
      "Approval mode",
      "narrowest check",
      "A rejected call",
      "Shell commands must not",
    ])
      expect(child).not.toContain(absent);
    expect(system("Find the config")).toContain("check the changes it claims");
  });

  it("a sub-agent is told its step limit and no tool it lacks; the single-task form keeps `tools`; its report is plain text", async () => {
    const parent = await h.newSession({
      replies: [
        {
          toolCalls: [
            {
              name: "delegate",
              arguments: { task: "Task edit: write the changelog", tools: ["echo", "write"], max_turns: 4 },
            },
          ],
        },
        { match: "Task edit", text: 'Wrote "CHANGELOG.md":\n- one line' },
        { match: "Wrote", text: "The sub-agent wrote the changelog." },
      ],
    });
    const events = await h.send(parent.id, "Delegate the changelog");
    const child = (await h.caller.session.get({ sessionId: parent.id })).children[0]!;
    expect(child.allowedTools).toEqual(["echo", "write"]);
    const childRequest = h.model.requests.find((r) => r.messages.some((m) => String(m.content).includes("Task edit")))!;
    expect(childRequest.tools.sort()).toEqual(["echo", "write"]);
    const system = String(childRequest.messages[0]!.content);
    expect(system).toContain("You have at most 4 steps");
    expect(system).not.toContain("ask_user");
    expect(system).toContain("cannot ask people");
    const llm = only(events, "tool_result")[0]!.payload.llm;
    expect(llm).toContain('Wrote "CHANGELOG.md":\n- one line');
    expect(llm).not.toContain('\\"');
  });

  it("a sub-agent's JSON report stays JSON: the parent model receives it as a JSON value and the card shows it as JSON", async () => {
    const report = { files: ["src/a.ts", "src/b.ts"], note: 'uses "strict" mode' };
    const parent = await h.newSession({
      replies: [
        { toolCalls: [{ name: "delegate", arguments: { task: "Task survey: list the files as JSON" } }] },
        { match: "Task survey", text: `\`\`\`json\n${JSON.stringify(report, null, 2)}\n\`\`\`` },
        { match: "", text: "Two files." },
      ],
    });
    const events = await h.send(parent.id, "Survey the files");
    const result = only(events, "tool_result")[0]!.payload;
    const child = (await h.caller.session.get({ sessionId: parent.id })).children[0]!;
    const expected = { task: 1, status: "completed", ok: true, session: child.id, result: report };
    expect(result.json).toBe(true);
    expect(result.display).toEqual({ kind: "json", value: expected });
    expect(JSON.parse(result.llm)).toEqual(expected);
    // The parent's next request carries the value itself (compact JSON), not a quoted, escaped string.
    const next = h.model.requests.find((r) => r.messages.some((m) => m.role === "tool"))!;
    const toolMessage = next.messages.find((m) => m.role === "tool")!;
    expect(JSON.parse(String(toolMessage.content))).toEqual(expected);
    expect(String(toolMessage.content)).toBe(JSON.stringify(expected));
  });

  it("cancelling the parent cancels its children", async () => {
    const parent = await h.newSession({
      replies: [
        {
          toolCalls: [
            { name: "delegate", arguments: { tasks: [{ prompt: "Task slow one" }, { prompt: "Task slow two" }] } },
          ],
        },
        { match: "Task slow one", text: "working ", hang: true },
        { match: "Task slow two", text: "working ", hang: true },
      ],
    });
    await h.caller.session.send({ sessionId: parent.id, text: "Delegate slow work" });
    await h.waitFor(() => h.model.requests.length === 3);
    await h.caller.session.cancel({ sessionId: parent.id });
    const children = (await h.caller.session.get({ sessionId: parent.id })).children;
    expect(children).toHaveLength(2);
    for (const child of children) {
      await h.agent.idle(child.id);
      const log = await listEvents(h.env.services.db, child.id);
      expect(only(log, "turn_finished")[0]!.payload.reason).toBe("cancelled");
    }
    const events = await h.events(parent.id);
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("cancelled");
    expect(await h.status(parent.id)).toBe("idle");
  });
});
