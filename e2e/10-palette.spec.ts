import { admin, expect, screenshotPath, test } from "./fixtures";

test("the command palette toggles a light theme that survives a reload", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Palette");
  const html = page.locator("html");
  await expect(html).toHaveAttribute("data-theme", "dark");

  await page.keyboard.press("Control+Shift+P");
  const palette = page.getByTestId("command-palette");
  await expect(palette).toBeVisible();
  await page.keyboard.type("theme");
  await expect(palette.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(palette).toHaveCount(0);
  await expect(html).toHaveAttribute("data-theme", "light");
  await page.screenshot({ path: screenshotPath("ide-light") });

  await page.reload();
  await ide.waitForLive();
  await expect(html).toHaveAttribute("data-theme", "light");

  await page.keyboard.press("Control+Shift+P");
  await expect(palette).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(palette).toHaveCount(0);

  await page.keyboard.press("Control+Shift+P");
  await page.keyboard.type("THEME");
  await page.keyboard.press("Enter");
  await expect(html).toHaveAttribute("data-theme", "dark");
});
