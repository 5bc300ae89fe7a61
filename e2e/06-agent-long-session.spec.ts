import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A long session opens quickly: the transcript renders only what is in view. The history is made
// the fast way a real agent could: steps of many parallel `think` calls (each one a tool_call and a
// tool_result event), through the real runtime, log and stream. 2,000 events are enough to show the
// window (a thousand transcript items, under 80 in the DOM); `npm run bench:ui` times a 10,000-event
// session against the sign-in page.

const CALLS_PER_STEP = 500;
const thinkStep = (step: number) =>
  Array.from({ length: CALLS_PER_STEP }, (_, i) => ({
    id: `call_${step}_${i}`,
    name: "think",
    arguments: { thought: `Step ${step}, thought ${i}: check module ${i}.` },
  }));

test("a session with 2,000 events opens quickly and renders only what is in view", async ({ page, ide }) => {
  test.setTimeout(240_000);
  const agent = new AgentPanel(page);
  await agent.script([
    { match: "history", text: "Thinking it through.", toolCalls: thinkStep(1) },
    { match: "Thought recorded", text: "More thoughts.", toolCalls: thinkStep(2) },
    { match: "Thought recorded", text: "All **2,000** events are in." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("History");
  // Not agent.ask: its check of the message on screen races the history itself, whose 1,000 cards
  // scroll the message out of the window (and out of the DOM) as fast as the scripted model answers.
  await agent.newSession();
  await agent.send("Fill this session with history");
  await expect(page.getByTestId("session-view")).toBeVisible();
  await expect(agent.assistantMessages().last()).toContainText("events are in", { timeout: 180_000 });

  const started = Date.now();
  await page.reload();
  await ide.waitForLive();
  await expect(agent.assistantMessages().last()).toContainText("events are in", { timeout: 60_000 });
  const elapsed = Date.now() - started;
  console.log(`A session of ${2 * 2 * CALLS_PER_STEP}+ events: its last message shown ${elapsed} ms after a reload`);
  expect(elapsed).toBeLessThan(20_000);

  // Only a window of the 1,000 transcript items is in the DOM.
  const rendered = await page.getByTestId("transcript").locator(".vlist-item").count();
  expect(rendered).toBeLessThan(80);
  await page.screenshot({ path: screenshotPath("agent-long-session") });

  // Scrolling to the top brings the first message into view.
  await page.getByTestId("transcript").focus();
  await page.keyboard.press("Home");
  await expect(agent.userMessages().first()).toBeVisible();
  await expect(agent.userMessages().first()).toContainText("Fill this session with history");
});
