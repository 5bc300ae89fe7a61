import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// Slash commands in the composer: `/` offers the built-in commands and the project's skills,
// completion narrows as you type, and each command acts: /cost answers in place, /model switches
// the session's model, /memory opens the memory panel, a skill becomes a request to use it, and
// /clear opens a new session with the same model.

const SKILL = `---
name: release-notes
description: Write release notes from the git log
---
Read the git log since the last tag and write release notes.
`;

test("slash commands: completion, /cost, /model, a skill, /memory, /clear", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    { match: "first things first", text: "Ready." },
    { match: 'Use the "release-notes" skill', text: "Using the release-notes skill." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Commands");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.mkdir(path.join(workspace, ".tandem/skills/release-notes"), { recursive: true });
  await fs.writeFile(path.join(workspace, ".tandem/skills/release-notes/SKILL.md"), SKILL);

  await agent.ask("first things first");
  await expect(agent.assistantMessages().last()).toContainText("Ready.");
  const input = page.getByTestId("composer-input");

  await input.fill("/");
  const items = page.getByTestId("completion-item");
  await expect(items.first()).toBeVisible();
  await expect(page.getByTestId("completion")).toContainText("/compact");
  await expect(page.getByTestId("completion")).toContainText("/release-notes");
  await page.getByTestId("completion").screenshot({ path: screenshotPath("slash-completion") });
  await input.pressSequentially("cos");
  await expect(items.first()).toContainText("/cost");
  await input.press("Enter"); // completes /cost
  await expect(input).toHaveValue("/cost");
  await input.press("Enter"); // runs it
  await expect(page.getByTestId("composer-notice")).toContainText("input tokens");
  await expect(input).toHaveValue("");

  await input.fill("/model openai-compatible:scripted");
  await input.press("Escape");
  await input.press("Enter");
  await expect(page.getByTestId("composer-notice")).toContainText("Model switched to openai-compatible:scripted");
  await input.fill("/model nobody:nothing");
  await input.press("Escape");
  await input.press("Enter");
  await expect(page.getByTestId("composer-notice")).toContainText("is not one of this server's models");

  await input.fill("/release-notes v2.0");
  await input.press("Escape");
  await input.press("Enter");
  await expect(agent.userMessages().last()).toContainText('Use the "release-notes" skill for: v2.0');
  await expect(agent.assistantMessages().last()).toContainText("Using the release-notes skill.");

  await input.fill("/memory");
  await input.press("Enter");
  await expect(page.getByRole("tab", { name: "Memory" })).toHaveAttribute("aria-selected", "true");
  await page.getByRole("tab", { name: "Chat" }).click();

  const firstTitle = await page.getByTestId("session-title").textContent();
  await page.getByTestId("composer-input").fill("/clear");
  await page.getByTestId("composer-input").press("Enter");
  await expect(page.getByTestId("session-title")).not.toHaveText(firstTitle ?? "");
  await expect(agent.userMessages()).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("slash-clear") });
});
