import { admin, expect, invitee, newContext, screenshotPath, test } from "./fixtures";
import { IdePage } from "./pages/ide";

test("an invited person signs up and cannot open someone else's project", async ({ page, ide, browser, pageErrors }) => {
  // Sign-up without an invitation is refused on purpose.
  pageErrors.allow(/status of 403 .*\/api\/auth\/sign-up/);
  await ide.signIn(admin);
  await ide.openProject("Demo");
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
