import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// Memory in context: a person pins a memory in the Memory panel, the next turn's prompt carries
// it, and the session says what context the turn used.

test("a pinned memory reaches the agent, and the session says what context it used", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await ide.signIn(admin);
  await ide.createProject("Memory context");

  await page.getByTestId("agent-tab-memory").click();
  await page.getByTestId("memory-new").click();
  await page.getByTestId("memory-key").fill("deploy-target");
  await page.getByTestId("memory-value").fill("Deploys go to staging first, then production.");
  await page.getByTestId("memory-save").click();
  const row = page.getByTestId("memory-row").filter({ hasText: "deploy-target" });
  await expect(row).toHaveAttribute("data-pinned", "false");
  await row.getByTestId("memory-pin").click();
  await expect(row.getByTestId("memory-pinned")).toHaveText("Pinned");
  await expect(row.getByTestId("memory-pin")).toHaveText("Unpin");
  await page.screenshot({ path: screenshotPath("memory-pinned") });

  // A message unrelated to the memory: only the pin brings it into the prompt.
  await agent.script([
    { match: "Say hello", text: "Hello!" },
    { match: "Greet again", text: "Hello again!" },
  ]);
  await agent.ask("Say hello");
  await expect(agent.assistantMessages().last()).toContainText("Hello!");
  await expect(page.getByTestId("context-used")).toHaveText("Context: 1 memory");
  await page.screenshot({ path: screenshotPath("context-used") });

  await page.getByTestId("agent-tab-memory").click();
  await row.getByTestId("memory-pin").click();
  await expect(row).toHaveAttribute("data-pinned", "false");
  await expect(row.getByTestId("memory-pinned")).toHaveCount(0);

  await agent.ask("Greet again");
  await expect(agent.assistantMessages().last()).toContainText("Hello again!");
  await expect(page.getByTestId("context-used")).toHaveCount(0);
});
