import type { Page } from "@playwright/test";
import { admin, expect, newContext, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// Teams and sharing with three browsers: the owner (Ada) and a teammate (Ian) work live in one
// agent session; an anonymous viewer watches it through a view link until it is revoked.

const TEAM = "Tandem crew";
const teammate: TestUser = {
  name: "Ian Teammate",
  email: "ian.teammate@example.com",
  password: "staple-lamp-orbit-42",
};
const PROJECT = "Shared demo";

async function openSession(page: Page, title: string) {
  await page.getByTestId("agent-tab-chat").click();
  const back = page.getByTestId("session-back");
  if (await back.isVisible()) await back.click();
  await page.getByTestId("session-row").filter({ hasText: title }).first().click();
  await expect(page.getByTestId("session-view")).toBeVisible();
}

test("a team works live in one session; a view link watches until it is revoked", async ({
  page,
  ide,
  browser,
  pageErrors,
}) => {
  // The preview of a new file's approval reads it first, and hears that it does not exist yet.
  pageErrors.allow(/status of 404 .*\/api\/trpc\/fs\.read/);
  // After the revocation the view link's page may still ask for the file list (its own request): refused.
  pageErrors.allow(/status of 401 .*\/api\/trpc\/fs\.files/);
  test.setTimeout(120_000);
  const agent = new AgentPanel(page);

  // Ian has an account (made here: the spec needs no other spec's).
  await ide.signIn(admin);
  const ian = await signUpPerson(browser, page, teammate);

  // Ada makes a team and invites Ian as a member.
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(TEAM);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await page.getByTestId("team-settings").click();
  await expect(page.getByTestId("team-title")).toHaveText(TEAM);
  await page.getByTestId("team-invite-role").selectOption("member");
  await page.getByTestId("team-invite-create").click();
  const inviteLink = await page.getByTestId("team-invite-link").inputValue();
  expect(inviteLink).toMatch(/\/join\/[A-Za-z0-9_-]{43}$/);

  await ian.page.goto(inviteLink);
  await expect(ian.page.getByTestId("join-team")).toContainText(`Join ${TEAM}`);
  await ian.page.getByTestId("join-accept").click();
  await expect(ian.page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await expect(ian.page.getByTestId("team-role")).toHaveText("member");

  await page.reload();
  await expect(page.getByTestId(`member-${teammate.email}`)).toContainText("member");
  await page.screenshot({ path: screenshotPath("team-settings") });

  // The login cookie is out of reach of scripts and of other sites' requests.
  const login = (await page.context().cookies()).find((c) => c.name.endsWith("session_token"));
  expect(login).toMatchObject({ httpOnly: true, sameSite: "Lax" });

  // Ada creates the team's project; Ian sees it in his list.
  await page.goto("/");
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await ide.createProject(PROJECT);
  await ide.newFile("notes.md");
  await ide.typeInEditor("# Notes");
  await ide.save();
  await ian.page.goto("/");
  await expect(ian.page.getByTestId(`project-${PROJECT}`)).toBeVisible();
  await ian.page.screenshot({ path: screenshotPath("team-projects") });

  // One session, two people: both see each other's messages, with their names.
  await agent.script([
    { match: "plan the greeting", text: "Happy to. Tell me what the greeting file should say." },
    {
      match: "Write the greeting",
      text: "I will write greeting.txt.",
      toolCalls: [
        { id: "call_write", name: "write_file", arguments: { path: "greeting.txt", content: "hello team\n" } },
      ],
    },
    { match: "Wrote", text: "Done: greeting.txt is written." },
  ]);
  await agent.newSession();
  await agent.send("Let us plan the greeting together");
  await expect(page.getByTestId("session-view")).toBeVisible();
  await expect(agent.assistantMessages().last()).toContainText("Tell me what the greeting file should say.");
  await ian.openProject(PROJECT);
  await openSession(ian.page, "Let us plan the greeting together");
  await expect(ian.page.getByTestId("user-message").first().getByTestId("message-author")).toHaveText(admin.name);

  // Presence: each sees the other; typing shows up on the other side.
  await expect(page.locator(`[data-testid=presence-avatar][data-name="${teammate.name}"]`)).toBeVisible();
  await expect(ian.page.locator(`[data-testid=presence-avatar][data-name="${admin.name}"]`)).toBeVisible();
  await expect(ian.page.getByTestId("composer-input")).toBeEnabled();
  await ian.page.getByTestId("composer-input").pressSequentially("Write the gr");
  await expect(page.getByTestId("typing-indicator")).toHaveText(`${teammate.name} is typing…`);
  await page.screenshot({ path: screenshotPath("team-session-presence") });
  await ian.page.getByTestId("composer-input").pressSequentially("eeting file please");
  await ian.page.getByTestId("composer-input").press("Enter");

  // Ada sees Ian's message under his name; the agent asks; Ian approves; both see who did.
  const fromIan = page.getByTestId("user-message").filter({ hasText: "Write the greeting file please" });
  await expect(fromIan.getByTestId("message-author")).toHaveText(teammate.name);
  await expect(
    ian.page
      .getByTestId("user-message")
      .filter({ hasText: "Write the greeting file please" })
      .getByTestId("message-author"),
  ).toHaveText("You");
  const ianCard = ian.page.getByTestId("tool-card").filter({ hasText: "greeting.txt" });
  await expect(ianCard).toHaveAttribute("data-status", "awaiting_approval");
  await ianCard.getByTestId("approve").click();
  const adaCard = page.getByTestId("tool-card").filter({ hasText: "greeting.txt" });
  await expect(adaCard).toHaveAttribute("data-status", "done");
  await expect(adaCard).toContainText(`Approved by ${teammate.name}`);
  await expect(page.getByTestId("assistant-message").last()).toContainText("greeting.txt is written");
  await page.screenshot({ path: screenshotPath("team-session-two-people") });
  await ian.page.screenshot({ path: screenshotPath("team-session-teammate") });

  // A save by one person reaches the other's open editor.
  await ide.openFile("notes.md");
  await ian.openFile("notes.md");
  await ian.typeInEditor(" from Ian");
  await ian.save();
  await ide.expectEditorText("# Notes from Ian");

  // A view link: an anonymous viewer watches live, reads touched files, and cannot send.
  await page.getByTestId("session-share").click();
  // Without a label the button is disabled, and says why beside it.
  await expect(page.getByTestId("share-create")).toBeDisabled();
  await expect(page.getByTestId("share-create-why")).toHaveText("Give the link a label (who it is for) to create it.");
  await page.screenshot({ path: screenshotPath("share-dialog-needs-label") });
  await page.getByTestId("share-label").fill("Demo viewers");
  await expect(page.getByTestId("share-create-why")).toHaveCount(0);
  await page.getByTestId("share-create").click();
  const shareUrl = await page.getByTestId("share-url").inputValue();
  expect(shareUrl).toMatch(/\/s\/[A-Za-z0-9_-]{43}$/);
  await page.screenshot({ path: screenshotPath("team-share-dialog") });
  await page.keyboard.press("Escape");

  const guestContext = await newContext(browser);
  const guest = await guestContext.newPage();
  const response = await guest.goto(shareUrl);
  // Every page carries the CSP: scripts only with this response's nonce, images from here only.
  const csp = response!.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("img-src 'self' data: blob:");
  expect(response!.headers()["referrer-policy"]).toBe("no-referrer");
  await expect(guest.getByTestId("share-page")).toHaveAttribute("data-scope", "view");
  await expect(
    guest
      .getByTestId("user-message")
      .filter({ hasText: "Write the greeting file please" })
      .getByTestId("message-author"),
  ).toHaveText(teammate.name);
  await expect(guest.getByTestId("composer-readonly")).toContainText("view-only");
  await expect(guest.getByTestId("composer-input")).toHaveCount(0);
  await expect(guest.getByTestId("send")).toHaveCount(0);
  await guest.getByTestId("share-file-greeting.txt").click();
  await expect(guest.getByTestId("share-file-view")).toContainText("hello team");
  await expect(page.getByTestId("presence-guests")).toHaveText("+1");

  await agent.script([{ match: "Say goodbye", text: "Goodbye from the agent." }]);
  await agent.send("Say goodbye to the viewers");
  await expect(guest.getByTestId("user-message").filter({ hasText: "Say goodbye to the viewers" })).toBeVisible();
  await expect(guest.getByTestId("assistant-message").last()).toContainText("Goodbye from the agent.");
  await guest.screenshot({ path: screenshotPath("team-share-viewer") });

  // Revoking the link throws the viewer out within 2 seconds.
  await page.getByTestId("session-share").click();
  await page.getByTestId("share-link-row").filter({ hasText: "Demo viewers" }).getByTestId("share-revoke").click();
  await expect(page.getByTestId("share-link-row").filter({ hasText: "Demo viewers" })).toHaveAttribute(
    "data-state",
    "revoked",
  );
  await expect(guest.getByTestId("share-ended")).toHaveAttribute("data-state", "revoked", { timeout: 2_000 });
  await guest.screenshot({ path: screenshotPath("team-share-revoked") });
  await guest.goto(shareUrl);
  await expect(guest.getByTestId("share-ended")).toContainText("This link was revoked");
  await expect(guest.getByTestId("user-message")).toHaveCount(0);

  // A link lasts only while its maker could still make it: Ian shares the session, Ada lowers him
  // to a viewer, and his link ends for its guests and shows as ended in the list.
  await ian.page.getByTestId("session-share").click();
  await ian.page.getByTestId("share-label").fill("Ian's guests");
  await ian.page.getByTestId("share-create").click();
  const iansUrl = await ian.page.getByTestId("share-url").inputValue();
  await guest.goto(iansUrl);
  await expect(guest.getByTestId("share-page")).toHaveAttribute("data-scope", "view");
  await page.goto("/");
  await page.getByTestId("team-settings").click();
  await page.getByTestId(`member-${teammate.email}`).getByTestId("member-role").selectOption("viewer");
  await expect(page.getByTestId(`member-${teammate.email}`).getByTestId("member-role")).toHaveValue("viewer");
  await expect(guest.getByTestId("share-ended")).toBeVisible({ timeout: 5_000 });
  await ide.openProject(PROJECT);
  await openSession(page, "Let us plan the greeting together");
  await page.getByTestId("session-share").click();
  const iansRow = page.getByTestId("share-link-row").filter({ hasText: "Ian's guests" });
  await expect(iansRow).toHaveAttribute("data-state", "ended");
  await expect(iansRow).toContainText("ended: its maker can no longer share");
  await page.screenshot({ path: screenshotPath("share-dialog-maker-ended") });

  await guestContext.close();
  await ian.page.context().close();
});
