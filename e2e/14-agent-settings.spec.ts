import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A project admin sets the agent's approval mode, allow and deny rules (checked line by line as
// they are typed), turns a built-in tool off, and sets the step limit and loop guard; the settings
// hold after a reload. The destructive-command guard's checks are edited by the server's admins.

test("agent settings: mode, validated rules, tools on and off, limits", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Agent policy");
  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("agent-settings-card");
  await expect(card).toBeVisible();
  await expect(card.getByTestId("mode-ask")).toBeChecked();
  await expect(card.getByTestId("tool-shell")).toBeChecked();
  // Tools go by their display names (lib/tool-call-shapes.ts), their ids in the tooltip.
  await expect(card.getByTestId("tool-switches")).toContainText("Web Fetch");
  const save = card.getByTestId("agent-settings-save");
  await expect(save).toBeDisabled();

  await card.getByTestId("mode-yolo").check();
  await card.getByTestId("allow-rules").fill("shell: npm test\nrm -rf /");
  await expect(card.getByTestId("allow-rules-problems")).toContainText('Line 2: "rm -rf /" is not a tool name');
  await expect(save).toBeDisabled();
  await card.getByTestId("allow-rules").fill("shell: npm test\nweb_fetch");
  await expect(card.getByTestId("allow-rules-problems")).toHaveCount(0);
  await card.getByTestId("deny-rules").fill("shell: git push");
  await card.getByTestId("tool-shell_kill").uncheck();
  await card.getByTestId("tool-web_fetch").uncheck();
  await card.getByTestId("step-limit").fill("0");
  await expect(card).toContainText("Step limit: between 1 and 500.");
  await expect(save).toBeDisabled();
  await card.getByTestId("step-limit").fill("25");
  await card.getByTestId("loop-guard").fill("4");
  await expect(save).toBeEnabled();
  await card.screenshot({ path: screenshotPath("agent-settings-edited") });
  await save.click();
  await expect(card.getByTestId("agent-settings-saved")).toBeVisible();

  await page.reload();
  await expect(card.getByTestId("mode-yolo")).toBeChecked();
  await expect(card.getByTestId("allow-rules")).toHaveValue("shell: npm test\nweb_fetch");
  await expect(card.getByTestId("deny-rules")).toHaveValue("shell: git push");
  await expect(card.getByTestId("tool-web_fetch")).not.toBeChecked();
  await expect(card.getByTestId("tool-shell_kill")).not.toBeChecked();
  await expect(card.getByTestId("tool-read_file")).toBeChecked();
  await expect(card.getByTestId("step-limit")).toHaveValue("25");
  await expect(card.getByTestId("loop-guard")).toHaveValue("4");
  await page.screenshot({ path: screenshotPath("agent-settings"), fullPage: true });
});

test("destructive-command guard: admins edit its checks; in yolo mode a force push still asks, with the reason on the card", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "publish",
      text: "Publishing.",
      toolCalls: [{ id: "call_push", name: "shell", arguments: { command: "git push --force origin main" } }],
    },
  ]);
  await ide.signIn(admin);

  await page.goto("/admin");
  const card = page.getByTestId("command-guard-card");
  const editor = card.getByTestId("command-guard-json");
  await expect(editor).toHaveValue(/"scratchPaths"/);
  await editor.fill('{ "diskTools": { "enabled": "yes" } }');
  await expect(card.getByTestId("command-guard-problems")).toContainText("diskTools.enabled");
  await expect(card.getByTestId("command-guard-save")).toBeDisabled();
  await editor.fill(
    JSON.stringify({ alwaysAsk: [{ prefix: "terraform destroy", reason: "Destroys the team's infrastructure." }] }),
  );
  await card.getByTestId("command-guard-save").click();
  await expect(card.getByTestId("command-guard-saved")).toBeVisible();
  await expect(editor).toHaveValue(/terraform destroy/);
  await card.screenshot({ path: screenshotPath("command-guard-admin") });

  await ide.createProject("Guarded");
  await page.getByTestId("project-settings").click();
  await page.getByTestId("mode-yolo").check();
  await page.getByTestId("allow-rules").fill("shell");
  await page.getByTestId("agent-settings-save").click();
  await expect(page.getByTestId("agent-settings-saved")).toBeVisible();
  await page.getByTestId("back-to-project").click();

  await agent.ask("publish the branch");
  await agent.expectStatus("waiting_approval");
  await expect(page.getByTestId("approval-reason")).toHaveText(
    "`git push` with force or delete rewrites the remote's history; a person always approves it.",
  );
  await expect(page.getByTestId("approval-title")).toHaveText("Waiting for approval · Shell");
  await expect(agent.toolCard(/git push/).getByTestId("tool-name")).toHaveText("Shell");
  await page
    .getByTestId("tool-card")
    .first()
    .screenshot({ path: screenshotPath("command-guard-card") });
});
