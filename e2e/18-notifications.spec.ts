import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { InboxPage } from "./pages/inbox";

// The inbox: an agent waiting for the person's approval lands in it, live, with the bell's count
// and the tab title's; answered, it is read; left waiting while the person is elsewhere, it counts
// on every page and its link opens the session where the approval waits. Then the person's
// delivery settings and a project's chat channels for send_message. (Email and the webhooks are
// tested against a real SMTP server and a loopback receiver in server/services/notifications.test.ts.)

test("the inbox: live count, title, link to the waiting session; delivery settings; chat channels", async ({
  page,
  ide,
  pageErrors,
}) => {
  test.setTimeout(150_000);
  // write_file's approval preview reads the file it would create, which is not there yet.
  pageErrors.allow(/status of 404 .*\/api\/trpc\/fs\.read/);
  const agent = new AgentPanel(page);
  const inbox = new InboxPage(page);
  await agent.script([
    {
      match: "Write the greeting",
      toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "hi.txt", content: "hi\n" } }],
    },
    {
      match: "Write the farewell",
      toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "bye.txt", content: "bye\n" } }],
    },
    { match: "Wrote", text: "Done." },
    { match: "Wrote", text: "Done." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Inbox demo");
  const projectUrl = page.url();
  // Earlier specs may have left Ada notifications: start from an empty count.
  await inbox.open();
  await expect(page.getByTestId("inbox-panel").locator(".inbox-list, .inbox-empty")).toBeVisible();
  await expect(async () => {
    if (await page.getByTestId("inbox-mark-all").isEnabled()) await page.getByTestId("inbox-mark-all").click();
    await expect(inbox.count()).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await page.keyboard.press("Escape");

  // The agent waits for Ada: the bell counts it at once (the inbox bus), and the inbox says what.
  await agent.ask("Write the greeting");
  await expect(agent.approvalCard()).toBeVisible();
  await expect(inbox.count()).toHaveText("1");
  await inbox.open();
  await expect(inbox.items().first()).toContainText("waits for your approval");
  await expect(inbox.items().first()).toHaveAttribute("data-kind", "approval");
  await page.getByTestId("inbox-panel").screenshot({ path: screenshotPath("inbox-panel") });
  await page.keyboard.press("Escape");

  // Answered here: no longer waiting, so read; Ada watched it finish, so that is not news.
  await agent.approvalCard().getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("Done.");
  await agent.expectStatus("idle");
  await expect(inbox.count()).toHaveCount(0);

  // Another wait, while Ada is on another page: the count is on every page, and in the title.
  await agent.ask("Write the farewell");
  await expect(agent.approvalCard()).toBeVisible();
  await page.goto("/");
  await expect(inbox.count()).toHaveText("1");
  await expect(page).toHaveTitle(/^\(1\) /);
  await page.locator(".app-header").screenshot({ path: screenshotPath("inbox-bell") });
  await inbox.open();
  await page.screenshot({ path: screenshotPath("inbox-open") });
  await inbox.items().first().click();
  await expect(page).toHaveURL(/\/p\/[^?]+\?session=/);
  await expect(agent.approvalCard()).toBeVisible();
  await expect(inbox.count()).toHaveCount(0);
  await agent.approvalCard().getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("Done.");

  // Delivery per kind: mentions by email too is not offered without SMTP; chat once a webhook is set.
  await page.goto("/account");
  await expect(inbox.settings()).toBeVisible();
  await expect(page.getByTestId("pref-mention-email")).toBeDisabled();
  await page.getByTestId("pref-session_finished-browser").uncheck();
  await page.getByTestId("notification-save").click();
  await expect(inbox.settings().getByText("Saved.")).toBeVisible();
  await page.getByTestId("chat-kind").selectOption("discord");
  await page.getByTestId("chat-url").fill("https://discord.example/api/webhooks/1/abc");
  await page.getByTestId("chat-save").click();
  await expect(inbox.settings()).toContainText("Set: a Discord incoming webhook");
  await expect(page.getByTestId("pref-mention-chat")).toBeEnabled();
  await page.reload();
  await expect(page.getByTestId("pref-session_finished-browser")).not.toBeChecked();
  await inbox.settings().screenshot({ path: screenshotPath("notification-settings") });

  // A project's chat channels for send_message: names and kinds shown, never the URL.
  await page.goto(`${projectUrl.replace(/\?.*$/, "")}/settings`);
  const channels = page.getByTestId("channels-card");
  await channels.getByTestId("channel-name").fill("team-chat");
  await channels.getByTestId("channel-url").fill("https://hooks.slack.com/services/T000/B000/XXXX");
  await channels.getByTestId("channel-save").click();
  await expect(channels.getByTestId("channel-row")).toContainText("#team-chat");
  await expect(channels).not.toContainText("hooks.slack.com/services");
  await channels.screenshot({ path: screenshotPath("chat-channels") });
});
