import { admin, expect, screenshotPath, test } from "./fixtures";

test("the first visitor creates the admin account, signs out and back in", async ({ page, ide, pageErrors }) => {
  // The wrong password is refused on purpose.
  pageErrors.allow(/status of 401 .*\/api\/auth\/sign-in/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("heading", { name: "Create the first account (you will be the admin)" })).toBeVisible();
  await page.screenshot({ path: screenshotPath("sign-in-first-run") });

  await ide.fillSignUp(admin);
  await expect(page.getByTestId("projects-empty")).toBeVisible();
  await page.screenshot({ path: screenshotPath("projects-empty") });

  await ide.signOut();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.screenshot({ path: screenshotPath("sign-in") });

  const form = page.getByTestId("sign-in-form");
  await form.getByLabel("Email").fill(admin.email);
  await form.getByLabel("Password").fill("not-the-password");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("auth-error")).toHaveText("Wrong email or password.");

  await ide.signInWithForm(admin);
  await expect(page.getByTestId("user-menu")).toContainText(admin.name);
});

test("signed-in visitors are sent away from the sign-in page, anonymous ones to it", async ({ page, ide, browser }) => {
  await ide.signIn(admin);
  await page.goto("/sign-in");
  await expect(page).toHaveURL(/\/$/);

  const anonymous = await browser.newPage();
  await anonymous.goto("/admin");
  await expect(anonymous).toHaveURL(/\/sign-in\?next=%2Fadmin/);
  await anonymous.close();
});
