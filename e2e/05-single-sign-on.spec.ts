import type { Page } from "@playwright/test";
import { admin, expect, newContext, screenshotPath, test } from "./fixtures";
import type { PageErrors } from "./page-errors";
import { OIDC_CLIENT } from "./fixtures/oidc-client";

// Single sign-on through a real OpenID provider (e2e/fixtures/oidc-provider.ts, started by
// scripts/e2e.mjs): people of the admitted domain (acme.test) get an account at their first
// sign-in; anyone else is told why they were not let in; the groups platform and platform-leads
// make them a member or an admin of the team Platform, and an admin can disable them. The
// first-run spec made the admin.

/** The provider's development pages ask for a web font and have no icon: not Tandem's errors. */
const allowProviderPages = (pageErrors: PageErrors) => pageErrors.allow(/fonts\.googleapis\.com|favicon\.ico/);

/** From Tandem's sign-in page through the provider's own login and consent pages. */
async function signOnAs(page: Page, login: string) {
  await page.goto("/sign-in");
  await page.getByTestId("sso-sign-in").click();
  await page.waitForURL(/\/interaction\//);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  // The provider asks once whether Tandem may have the person's email and profile.
  await page.locator('button[type="submit"]').click();
}

test("a person of the organisation signs on with its provider and gets an account", async ({ browser, pageErrors }) => {
  allowProviderPages(pageErrors);
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto("/sign-in");
  await expect(page.getByTestId("sso-sign-in")).toHaveText(`Sign in with ${OIDC_CLIENT.name}`);
  await page.screenshot({ path: screenshotPath("sign-in-sso") });

  const login = `ann-${Date.now()}`;
  await signOnAs(page, login);
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in") && url.port !== "");
  await expect(page.getByTestId("projects-empty")).toBeVisible();
  const me = await page.evaluate(async () => (await fetch("/api/trpc/account.me")).json());
  expect(JSON.stringify(me)).toContain(`${login}@acme.test`);

  // Signing on again is the same account, not a second one.
  await context.clearCookies();
  await signOnAs(page, login);
  await expect(page.getByTestId("projects-empty")).toBeVisible();
  await context.close();
});

test("someone outside the admitted domains is turned away with a reason", async ({ browser, pageErrors }) => {
  allowProviderPages(pageErrors);
  // The test's own check that nobody is signed in.
  pageErrors.allow(/401 .*account\.me/);
  const context = await newContext(browser);
  const page = await context.newPage();
  await signOnAs(page, `mallory-${Date.now()}@evil.test`);
  await page.waitForURL(/\/sign-in/);
  await expect(page.getByTestId("sso-error")).toContainText("domain is not admitted");
  const me = await page.evaluate(async () => (await fetch("/api/trpc/account.me")).status);
  expect(me).toBe(401);
  await context.close();
});

test("the provider's groups make a team admin, and a disabled person is refused at their next request", async ({
  browser,
  page,
  ide,
  pageErrors,
}) => {
  allowProviderPages(pageErrors);
  // The refused requests after the admin disabled the person.
  pageErrors.allow(/401 /);
  const context = await newContext(browser);
  const gil = await context.newPage();
  const login = `gil-${Date.now()}`;
  await signOnAs(gil, `${login}#platform-leads,unmapped`);
  await gil.waitForURL((url) => !url.pathname.startsWith("/sign-in") && url.port !== "");
  await gil.getByTestId("team-switcher").selectOption({ label: "Platform" });
  await expect(gil.getByTestId("team-role")).toHaveText("admin");
  await gil.screenshot({ path: screenshotPath("sso-group-team") });

  // The first-run admin disables Gil on the admin page.
  await ide.signIn(admin);
  await page.goto("/admin");
  const row = page.locator(`[data-testid="user-row"][data-email="${login}@acme.test"]`);
  await row.getByTestId("user-toggle-disabled").click();
  await expect(row.getByTestId("user-disabled")).toBeVisible();
  await page.getByTestId("users-card").screenshot({ path: screenshotPath("admin-users") });

  expect(await gil.evaluate(async () => (await fetch("/api/trpc/account.me")).status)).toBe(401);
  await context.clearCookies();
  await signOnAs(gil, `${login}#platform-leads`);
  await gil.waitForURL(/\/sign-in/);
  await expect(gil.getByTestId("sso-error")).toContainText("disabled your account");
  await context.close();
});
