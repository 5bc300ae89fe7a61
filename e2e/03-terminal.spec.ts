import { admin, expect, screenshotPath, test } from "./fixtures";

test("a terminal runs a command and keeps its scrollback across a reload", async ({ page, ide }) => {
  await ide.signIn(admin);
  // A project of its own: the terminal it opens is the project's only one, the one shown after a reload.
  await ide.createProject("Terminal");
  await ide.openTerminal();
  await ide.runInTerminal("echo hello-$((6*7))");
  await expect(ide.terminalText()).toContainText("hello-42");
  await page.screenshot({ path: screenshotPath("terminal") });

  await page.reload();
  await expect(page.getByTestId("terminal")).toHaveAttribute("data-status", "connected");
  await expect(ide.terminalText()).toContainText("hello-42");

  await page.getByTestId("terminal-new").click();
  await expect(page.getByTestId("terminal-tab-1")).toHaveAttribute("aria-selected", "true");
  await page.getByTestId("terminal-tab-1").getByTestId("terminal-close").click();
  await expect(page.getByTestId("terminal-tab-1")).toHaveCount(0);
  await expect(ide.terminalText()).toContainText("hello-42");
});
