import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// Secrets: a project admin adds one in the project settings; a terminal and the agent's shell get
// it by name, and what they print shows [secret NAME], never the value (docs/security.md#secrets).
// The person's own terminal shows the placeholder too: its output is the same stream teammates
// watch, and what the agent reads of a command is redacted the same way.

const VALUE = "npm-e2e-0123456789abcdef";

test("a project secret reaches the terminal and the agent's shell, and only its name is ever shown", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "publish",
      text: "I'll check the token is there.",
      toolCalls: [{ id: "call_secret", name: "shell", arguments: { command: 'echo "publishing with $NPM_TOKEN"' } }],
    },
    { match: "publishing with", text: "The token is set: I see it as `[secret NPM_TOKEN]`." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Secrets");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;

  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("secrets-project");
  await expect(card).toContainText("No secrets yet.");
  // Names are environment variable names, and the sandbox's own are refused, before a round trip.
  await card.getByTestId("secret-name").fill("LD_PRELOAD");
  await card.getByTestId("secret-value").fill(VALUE);
  await expect(card).toContainText("choose another name");
  await expect(card.getByTestId("secret-save")).toBeDisabled();
  await card.getByTestId("secret-name").fill("NPM_TOKEN");
  await card.getByTestId("secret-save").click();
  await expect(card.getByTestId("secret-saved")).toContainText("Saved NPM_TOKEN");
  await expect(card.getByTestId("secret-NPM_TOKEN")).toBeVisible();
  await expect(card.getByTestId("secret-value")).toHaveValue("");
  expect(await page.content()).not.toContain(VALUE);
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("secrets-project-settings") });

  // After a reload the list still names it, and the page still holds no value.
  await page.reload();
  await expect(page.getByTestId("secrets-project").getByTestId("secret-NPM_TOKEN")).toBeVisible();
  expect(await page.content()).not.toContain(VALUE);

  await page.goto(`/p/${projectId}`);
  await ide.waitForLive();
  await ide.openTerminal();
  await page.keyboard.type('echo "token=$NPM_TOKEN length=${#NPM_TOKEN}"\n');
  await expect(ide.terminalText()).toContainText("token=[secret NPM_TOKEN] length=24");
  await expect(ide.terminalText()).not.toContainText(VALUE);
  await page.screenshot({ path: screenshotPath("secrets-terminal") });

  await agent.ask("Can you publish the package?");
  const shellCard = agent.toolCard(/publishing with/);
  await expect(shellCard).toHaveAttribute("data-status", "awaiting_approval");
  await shellCard.getByTestId("approve").click();
  await expect(shellCard).toHaveAttribute("data-status", "done");
  await expect(shellCard).toContainText("publishing with [secret NPM_TOKEN]");
  await expect(agent.assistantMessages().last()).toContainText("[secret NPM_TOKEN]");
  expect(await page.content()).not.toContain(VALUE);
  await page.screenshot({ path: screenshotPath("secrets-agent") });

  // A person's own secret, on their account page.
  await page.goto("/account");
  const mine = page.getByTestId("secrets-person");
  await mine.getByTestId("secret-name").fill("MY_TOKEN");
  await mine.getByTestId("secret-value").fill("short");
  await expect(mine).toContainText("at least 8 characters");
  await mine.getByTestId("secret-value").fill("mine-0123456789");
  await mine.getByTestId("secret-save").click();
  await expect(mine.getByTestId("secret-MY_TOKEN")).toBeVisible();
  await mine.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("secrets-account") });
  await mine.getByTestId("secret-MY_TOKEN").getByTestId("secret-remove").click();
  await expect(mine.getByTestId("secret-MY_TOKEN")).toHaveCount(0);

  // The team's, shared by its projects: the same card on the team settings page.
  await page.goto("/");
  await page.getByTestId("team-settings").click();
  const team = page.getByTestId("secrets-team");
  await team.getByTestId("secret-name").fill("SENTRY_DSN");
  await team.getByTestId("secret-value").fill("https://key@sentry.example/1");
  await team.getByTestId("secret-save").click();
  await expect(team.getByTestId("secret-SENTRY_DSN")).toBeVisible();
  await team.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("secrets-team") });
});
