import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// Agent telemetry on the admin page: after a turn whose tool call failed, the admin sees the
// tool's calls and errors and the model's steps and tokens, over the window they pick.

test("the admin page shows the agent's tool and model metrics", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await ide.signIn(admin);
  await ide.createProject("Telemetry");
  await agent.script([
    {
      match: "Recall the deploy key",
      toolCalls: [{ id: "call_mem", name: "memory", arguments: { action: "retrieve", key: "deploy", scope: "user" } }],
    },
    { match: "NOT_FOUND", text: "Nothing stored under deploy." },
  ]);
  await agent.ask("Recall the deploy key");
  await expect(agent.assistantMessages().last()).toContainText("Nothing stored under deploy.");

  await page.goto("/admin");
  const card = page.getByTestId("telemetry-card");
  await expect(card.getByTestId("telemetry-export")).toContainText("Not exported");
  const memory = card.getByTestId("telemetry-tools").locator("tr", { hasText: "memory" });
  await expect(memory).toContainText("(mostly NOT_FOUND)");
  await expect(card.getByTestId("telemetry-models")).toContainText("scripted");
  await card.getByTestId("telemetry-window").selectOption({ label: "Last hour" });
  await expect(memory).toBeVisible();
  await card.screenshot({ path: screenshotPath("admin-telemetry") });
});
