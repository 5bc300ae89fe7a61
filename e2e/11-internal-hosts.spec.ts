import { admin, expect, screenshotPath, test } from "./fixtures";

// A team admin lets the team's projects reach hosts on the office network (team settings,
// Internal hosts): a bad entry is named, a good list is saved and shown again after a reload.

test("a team admin saves the team's internal hosts, and a bad entry is named", async ({ page, ide, pageErrors }) => {
  // The bad entry's refusal.
  pageErrors.allow(/status of 400 .*\/api\/trpc\/team\.setInternalHosts/);
  await ide.signIn(admin);
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill("Office");
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText("Office");
  await page.getByTestId("team-settings").click();
  const card = page.getByTestId("team-internal-hosts");
  await expect(card).toBeVisible();

  await card.getByTestId("team-internal-hosts-input").fill("git.office.lan\nnot a host!");
  await card.getByTestId("team-internal-hosts-save").click();
  await expect(card.locator(".error-text")).toContainText(
    "must be a host name (git.office.lan), *.domain, an address (10.20.0.7) or a range (10.20.0.0/16)",
  );

  await card.getByTestId("team-internal-hosts-input").fill("git.office.lan\n10.20.0.0/16");
  await card.getByTestId("team-internal-hosts-save").click();
  await expect(card).toContainText("Saved: applies to the next connection.");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("team-internal-hosts") });
  await page.reload();
  await expect(page.getByTestId("team-internal-hosts-input")).toHaveValue("git.office.lan\n10.20.0.0/16");
});
