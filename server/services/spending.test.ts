import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { setModelSetting } from "@/server/db/repositories/agent-settings";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { inboxBudgetNotices, type BudgetNotice } from "@/server/services/spending";

// Budgets through the real runtime: the scripted model (a real OpenAI-compatible server on
// loopback) answers, the real provider code counts its tokens, the ledger is Postgres. Every step
// of the scripted model reports 1,000 input tokens, and the model's price makes that $1 a step.

const STEP = { prompt_tokens: 1000, completion_tokens: 0 };
let harness: Awaited<ReturnType<typeof createAgentHarness>>;
let model: string;
const notices: BudgetNotice[] = [];

beforeAll(async () => {
  harness = await createAgentHarness({ budgetNotices: { warn: async (notice) => void notices.push(notice) } });
  const { services } = harness.env;
  model = (await harness.newSession()).model;
  await setModelSetting(services.db, {
    model,
    inputPerMTok: 1000,
    outputPerMTok: 1000,
    cachedInputPerMTok: null,
    contextWindow: null,
  });
}, 60_000);
afterAll(() => harness?.dispose());

/** A team of its own with a project, `person` in it as a member, and `spent` already in the ledger in `steps` steps. */
async function teamWithSpending(spent: number, steps: number) {
  const db = harness.env.services.db;
  const person = await harness.env.createUser("user");
  const team = await createTeam(db, { name: `Budgeted ${crypto.randomUUID().slice(0, 6)}`, ownerId: harness.user.id });
  await addMember(db, team.id, person.id, "member");
  const as = createCallerFactory(appRouter)(harness.env.context(person));
  const project = await as.project.create({ name: "Work", teamId: team.id });
  for (let i = 0; i < steps; i++)
    await db.usageEntry.create({
      data: {
        sessionId: crypto.randomUUID(),
        projectId: project.id,
        teamId: team.id,
        userId: person.id,
        model,
        inputTokens: 1,
        outputTokens: 0,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        costUsd: spent / steps,
      },
    });
  return { team, person, as, project };
}

const finishes = async (sessionId: string) => only(await harness.events(sessionId), "turn_finished");

describe("budgets", () => {
  it("refuses a new turn at 100% with a message naming the budget and who can raise it, and asks the model nothing", async () => {
    const { team, as, project } = await teamWithSpending(10, 10);
    await harness.caller.usage.setBudget({ teamId: team.id, monthlyUsd: 10 });
    const asked = harness.model.requests.length;
    const session = await as.session.create({ projectId: project.id });
    await as.session.send({ sessionId: session.id, text: "Do it" });
    await harness.agent.idle(session.id);
    const [finished] = await finishes(session.id);
    expect(finished!.payload.reason).toBe("budget");
    expect(finished!.payload.message).toContain(`the team budget of ${team.name} ($10.00 a month) is used up`);
    expect(finished!.payload.message).toContain(harness.user.email);
    expect(harness.model.requests.length).toBe(asked);
    expect((await as.session.get({ sessionId: session.id })).status).toBe("idle");
  });

  it("lets exactly one of many turns started at once through a budget at 99% (an attacker racing the check)", async () => {
    // $9.90 of $10 spent in 99 steps of $0.10: a step holds $0.10 while it runs, so one fits.
    const { team, as, project } = await teamWithSpending(9.9, 99);
    await harness.caller.usage.setBudget({ teamId: team.id, monthlyUsd: 10 });
    harness.model.load({ replies: Array.from({ length: 12 }, () => ({ text: "Done.", usage: STEP })) });
    const sessions = await Promise.all(Array.from({ length: 12 }, () => as.session.create({ projectId: project.id })));
    await Promise.all(sessions.map((s) => as.session.send({ sessionId: s.id, text: "Spend" })));
    await Promise.all(sessions.map((s) => harness.agent.idle(s.id)));
    const reasons = await Promise.all(sessions.map(async (s) => (await finishes(s.id))[0]!.payload.reason));
    expect(reasons.filter((r) => r === "completed")).toHaveLength(1);
    expect(reasons.filter((r) => r === "budget")).toHaveLength(11);
    // What the one step used is in the ledger, and its hold is gone.
    const usage = await harness.caller.usage.team({ teamId: team.id });
    expect(usage.budget).toMatchObject({ monthlyUsd: 10, spentUsd: expect.closeTo(10.9, 5) });
    expect(await harness.env.services.db.budgetHold.count({ where: { teamId: team.id } })).toBe(0);
  }, 90_000);

  it("never cuts a tool call: the step that crosses the budget finishes its call, and the turn stops before the next step", async () => {
    const { person, as, project } = await teamWithSpending(0, 0);
    await harness.caller.usage.setBudget({ email: person.email, monthlyUsd: 1 });
    harness.model.load({
      replies: [
        {
          text: "Let me look. ",
          toolCalls: [{ id: "call_echo", name: "echo", arguments: { text: "hi" } }],
          usage: STEP,
        },
        { match: "echo: hi", text: "The tool said hi.", usage: STEP },
      ],
    });
    const session = await as.session.create({ projectId: project.id });
    await as.session.send({ sessionId: session.id, text: "Look" });
    await harness.agent.idle(session.id);
    const events = await harness.events(session.id);
    expect(only(events, "tool_result").map((e) => e.payload.toolCallId)).toEqual(["call_echo"]);
    const [finished] = only(events, "turn_finished");
    expect(finished!.payload.reason).toBe("budget");
    expect(finished!.payload.message).toContain("your personal budget ($1.00 a month) is used up");
    expect(harness.toolLog.map((t) => t.tool)).toEqual(["echo"]);
    // Past 80% its person was told, once: the refusal that followed told nobody again.
    expect(notices.filter((n) => n.recipients.includes(person.id))).toEqual([
      expect.objectContaining({ scope: "person", name: person.email, monthlyUsd: 1, recipients: [person.id] }),
    ]);
  });

  it("refuses a model without a price under a budget, which could otherwise spend uncounted", async () => {
    const { team, as, project } = await teamWithSpending(0, 0);
    await harness.caller.usage.setBudget({ teamId: team.id, monthlyUsd: 100 });
    const session = await as.session.create({ projectId: project.id, model: "openai-compatible:unpriced" });
    await as.session.send({ sessionId: session.id, text: "Go" });
    await harness.agent.idle(session.id);
    const [finished] = await finishes(session.id);
    expect(finished!.payload.reason).toBe("budget");
    expect(finished!.payload.message).toContain("this session's model has no price");
  });
});

describe("the 80% notice", () => {
  it("reaches each recipient's inbox, naming the budget and what happens at 100%", async () => {
    const services = harness.env.services;
    const person = await harness.env.createUser("user");
    await inboxBudgetNotices(services.notifications).warn({
      scope: "team",
      name: "Platform",
      monthlyUsd: 100,
      spentUsd: 81.5,
      month: "2026-11",
      recipients: [person.id],
    });
    const as = createCallerFactory(appRouter)(harness.env.context(person));
    const [notice] = await as.notification.list({ unreadOnly: true });
    expect(notice).toMatchObject({ kind: "budget", title: "The team budget of Platform is 82% spent" });
    expect(notice!.body).toContain("$81.50 of $100.00 in 2026-11");
    expect(notice!.body).toMatch(/100%.*refused/);
  });
});
