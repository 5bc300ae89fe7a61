import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A delegated sub-agent is live in its card in the parent session: its step, the tool it runs and
// its last lines stream in while it works, and it can be cancelled from there; the parent goes on.

test("live sub-agent: step, current tool, last lines, cancel from its card", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "look into the notes",
      toolCalls: [
        { id: "call_delegate", name: "delegate", arguments: { tasks: [{ prompt: "Task notes: summarise notes.md" }] } },
      ],
    },
    {
      match: "Task notes",
      text: "Opening the notes. ",
      toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.md" } }],
    },
    { match: "purple elephants", text: "Thinking about purple elephants for a long while", hang: true },
    { match: "cancelled", text: "The sub-agent was cancelled, so I stopped there." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Delegation");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  await fs.writeFile(
    path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId, "notes.md"),
    "The notes are about purple elephants.\n",
  );

  await agent.ask("look into the notes");
  const card = page.getByTestId("subagent-card");
  await expect(card).toHaveAttribute("data-status", "running");
  await expect(card.getByTestId("subagent-status")).toContainText("Step 2", { timeout: 15_000 });
  await expect(card.getByTestId("subagent-lines")).toContainText("Read notes.md");
  await expect(card.getByTestId("subagent-lines")).toContainText("Thinking about purple elephants");
  await card.screenshot({ path: screenshotPath("subagent-live") });

  await card.getByTestId("cancel-subagent").click();
  await expect(card).toHaveAttribute("data-status", "failed");
  await expect(agent.assistantMessages().last()).toContainText("The sub-agent was cancelled, so I stopped there.");
});

test("Remember this on a message keeps it as one of the person's memories", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([{ match: "deploy", text: "Deploys go out with `make ship` from the release branch." }]);
  await ide.signIn(admin);
  await ide.createProject("Remembering");
  await agent.ask("how do we deploy?");
  const answer = agent.assistantMessages().last();
  await expect(answer).toContainText("make ship");
  await answer.hover();
  await answer.getByTestId("remember-this").click();
  await expect(answer.getByTestId("remember-this")).toHaveText("Remembered");
  await page.getByRole("tab", { name: "Memory" }).click();
  await page.getByTestId("memory-scope-user").click();
  await expect(page.getByTestId("memory-row").filter({ hasText: "make ship" })).toHaveCount(1);
});
