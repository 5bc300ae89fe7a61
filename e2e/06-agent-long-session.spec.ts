import superjson from "superjson";
import type { SessionStreamItem } from "../lib/session-events";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A session with 10,000 events opens quickly: the transcript renders only what is in view.
// Running 1,000 real turns would take minutes, so the log is synthesized: the test routes the
// tRPC WebSocket, passes everything through except this session's `session.events`, which it
// answers itself, in the wire format the server uses (tracked items, superjson).

const TURNS = 1000;

function syntheticLog(sessionId: string, authorId: string): SessionStreamItem[] {
  const items: SessionStreamItem[] = [];
  let seq = 0;
  const at = new Date("2026-11-20T09:00:00Z");
  const add = (type: string, payload: unknown, author: string | null = null) =>
    items.push({ kind: "event", event: { sessionId, seq: ++seq, type, payload, authorId: author, createdAt: at } as never });
  for (let turn = 1; turn <= TURNS; turn++) {
    const turnId = `turn-${turn}`;
    add("user_message", { text: `Question ${turn}: what does module ${turn} do?`, authorName: "Ada Admin" }, authorId);
    add("status", { status: "running" });
    add("turn_started", { turnId, model: "openai-compatible:scripted", resumed: false });
    add("tool_call", { turnId, stepId: `${turnId}-1`, toolCallId: `call-${turn}`, toolName: "read_file", input: { path: `src/module-${turn}.ts` }, title: `Read src/module-${turn}.ts`, kind: "read" });
    add("tool_result", { turnId, toolCallId: `call-${turn}`, toolName: "read_file", ok: true, llm: "…", display: { kind: "text", text: `Read src/module-${turn}.ts (1-40)` }, durationMs: 12 });
    add("assistant_delta", { turnId, stepId: `${turnId}-2`, text: `Module ${turn} ` });
    add("assistant_message", { turnId, stepId: `${turnId}-2`, text: `Module ${turn} **parses** the \`config-${turn}\` file and returns its settings.` });
    add("usage", {
      turnId,
      stepId: `${turnId}-2`,
      step: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 },
      session: { inputTokens: 100 * turn, outputTokens: 20 * turn, cachedInputTokens: 0, reasoningTokens: 0 },
      stepCostUsd: null,
      sessionCostUsd: 0,
    });
    add("turn_finished", { turnId, reason: "completed", steps: 2 });
    add("status", { status: "idle" });
  }
  return items;
}

test("a session with 10,000 events opens quickly and renders only what is in view", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([{ text: "Short answer." }]);
  await ide.signIn(admin);
  await ide.openProject("Agent demo");
  await agent.ask("A session to fill with history");
  await expect(agent.assistantMessages().last()).toHaveText("Short answer.");
  const sessionId = await page.evaluate(() => localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith("tandem-agent-session:"))!));
  const log = syntheticLog(sessionId!, "a-teammate");
  expect(log).toHaveLength(TURNS * 10);

  await page.routeWebSocket(/\/api\/trpc\/ws/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const parsed = JSON.parse(String(message)) as unknown;
      const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ id: number; method: string; params?: { path: string; input: { json: { sessionId?: string } } } }>;
      const forward = messages.filter((m) => {
        if (m.method !== "subscription" || m.params?.path !== "session.events" || m.params.input.json.sessionId !== sessionId) return true;
        ws.send(JSON.stringify({ id: m.id, result: { type: "started" } }));
        for (const item of log) ws.send(JSON.stringify({ id: m.id, result: { type: "data", id: String(item.kind === "event" ? item.event.seq : 0), data: superjson.serialize(item) } }));
        return false;
      });
      if (forward.length) server.send(JSON.stringify(forward.length === 1 ? forward[0] : forward));
    });
  });

  const started = Date.now();
  await page.reload();
  await expect(agent.assistantMessages().last()).toContainText(`Module ${TURNS} parses`);
  const elapsed = Date.now() - started;
  console.log(`10,000 events: last message shown ${elapsed} ms after the reload`);
  expect(elapsed).toBeLessThan(15_000);
  await expect(page.getByTestId("usage-counter")).toContainText("↑100K ↓20K");

  // Only a window of the 4,000 transcript items is in the DOM.
  const rendered = await page.getByTestId("transcript").locator(".vlist-item").count();
  expect(rendered).toBeLessThan(120);
  await page.screenshot({ path: screenshotPath("agent-long-session") });

  // Scrolling to the top brings the first question into view.
  await page.getByTestId("transcript").focus();
  await page.keyboard.press("Home");
  await expect(agent.userMessages().first()).toContainText("Question 1:");
});
