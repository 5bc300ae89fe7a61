import { admin, expect, invitee, newContext, screenshotPath, test, type TestUser } from "./fixtures";
import { IdePage } from "./pages/ide";

test("an invited person signs up and cannot open someone else's project", async ({
  page,
  ide,
  browser,
  pageErrors,
}) => {
  // Sign-up without an invitation is refused on purpose.
  pageErrors.allow(/status of 403 .*\/api\/auth\/sign-up/);
  await ide.signIn(admin);
  await ide.createProject("Admin's own");
  const projectUrl = page.url();

  await page.goto("/admin");
  await page.getByTestId("signup-mode-invite").click();
  await expect(page.getByTestId("signup-mode-invite")).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("create-invite").click();
  const link = await page.getByTestId("invite-link").inputValue();
  expect(link).toMatch(/\/sign-up\?invite=/);
  await page.screenshot({ path: screenshotPath("admin") });

  const context = await newContext(browser);
  const guest = new IdePage(await context.newPage());
  await guest.page.goto("/sign-up");
  await expect(guest.page.getByTestId("signup-closed")).toContainText("Sign-up is by invitation; ask an admin");

  await guest.page.goto(link);
  await guest.fillSignUp(invitee);
  await expect(guest.page.getByTestId("projects-empty")).toBeVisible();
  await guest.saveLogin(invitee);

  await guest.page.goto(projectUrl);
  await expect(guest.page.getByTestId("project-not-found")).toContainText("Project not found");

  // The link worked once only.
  await guest.page.goto("/");
  await guest.signOut();
  await guest.page.goto(link);
  await guest.fillSignUp({ ...invitee, email: "someone-else@example.com" });
  await expect(guest.page.getByTestId("auth-error")).toContainText("already been used");
  await context.close();
});

/** Someone with no account yet, who gets a team's invitation link. */
const newcomer: TestUser = { name: "Nora Newcomer", email: "nora@example.com", password: "quiet-river-stone-7" };

test("a team's invitation link signs a new person up and into the team's projects, once", async ({
  page,
  ide,
  browser,
}) => {
  const team = "Launch crew";
  await ide.signIn(admin);
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(team);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(team);
  await ide.createProject("Launch plan");
  await page.goto("/");
  await page.getByTestId("team-settings").click();
  await page.getByTestId("team-invite-role").selectOption("member");
  await page.getByTestId("team-invite-create").click();
  const link = await page.getByTestId("team-invite-link").inputValue();

  // One link: Nora has no account, signs up on the page it opens, and is in the team.
  const context = await newContext(browser);
  const nora = new IdePage(await context.newPage());
  await nora.page.goto(link);
  await expect(nora.page.getByTestId("join-team")).toContainText(`Join ${team}`);
  await nora.page.screenshot({ path: screenshotPath("join-sign-up") });
  await nora.page.setViewportSize({ width: 900, height: 700 });
  await nora.page.screenshot({ path: screenshotPath("join-sign-up-900") });
  await nora.page.setViewportSize({ width: 1280, height: 800 });
  await nora.fillSignUp(newcomer);
  await expect(nora.page.getByTestId("team-switcher").locator("option:checked")).toHaveText(team);
  await expect(nora.page.getByTestId("project-Launch plan")).toBeVisible();
  await expect(nora.page.getByTestId("user-menu")).toContainText(newcomer.name);
  await nora.page.screenshot({ path: screenshotPath("join-landed") });
  await page.reload();
  await expect(page.getByTestId(`member-${newcomer.email}`)).toContainText("member");

  // The link worked once: someone who opens it later is told so (the server refuses its sign-up too).
  const late = await (await newContext(browser)).newPage();
  await late.goto(link);
  await expect(late.getByTestId("join-invalid")).toContainText("already been used");
  await context.close();
  await late.context().close();
});
