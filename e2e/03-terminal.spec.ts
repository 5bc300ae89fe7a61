import { admin, expect, screenshotPath, test } from "./fixtures";

test("a terminal runs a command and keeps its scrollback across a reload", async ({ page, ide }) => {
  await ide.signIn(admin);
  // A project of its own: the terminals here are the only ones this spec sees.
  await ide.createProject("Terminal");
  await ide.openTerminal();
  // A terminal just opened takes the keyboard: typing needs no click into it first.
  await page.keyboard.type("echo hello-$((6*7))\n");
  await expect(ide.terminalText()).toContainText("hello-42");
  await page.screenshot({ path: screenshotPath("terminal") });

  await page.reload();
  await expect(page.getByTestId("terminal")).toHaveAttribute("data-status", "connected");
  await expect(ide.terminalText()).toContainText("hello-42");

  await page.getByTestId("terminal-new").click();
  await expect(page.getByTestId("terminal-tab-1")).toHaveAttribute("aria-selected", "true");
  await ide.runInTerminal("echo second-$((2*3))");
  await expect(ide.terminalText()).toContainText("second-6");

  // A reload comes back to the terminal last looked at, not the project's first.
  await page.reload();
  await expect(page.getByTestId("terminal-tab-1")).toHaveAttribute("aria-selected", "true");
  await expect(ide.terminalText()).toContainText("second-6");
  await page.getByTestId("terminal-tab-1").getByTestId("terminal-close").click();
  await expect(page.getByTestId("terminal-tab-1")).toHaveCount(0);
  await expect(ide.terminalText()).toContainText("hello-42");

  // With no terminal left, Ctrl+` opens one, ready for typing.
  await page.getByTestId("terminal-tab-0").getByTestId("terminal-close").click();
  await expect(page.getByTestId("terminal-open")).toBeVisible();
  await page.keyboard.press("Control+Backquote");
  await expect(page.getByTestId("terminal")).toHaveAttribute("data-status", "connected");
  await page.keyboard.type("echo third-$((3*3))\n");
  await expect(ide.terminalText()).toContainText("third-9");
});

test("a flood of output ends with its last lines and the prompt on screen, and Ctrl-C stops an endless one", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Terminal flood");
  await ide.openTerminal();
  // Far more lines than the scrollback holds: the browser skips what would scroll out unseen.
  await ide.runInTerminal("seq 1 400000; echo flood-$((40+2))");
  await expect(ide.terminalText()).toContainText("flood-42");
  await expect(ide.terminalText()).toContainText("399999");

  await ide.runInTerminal("yes tandem-flood");
  await expect(ide.terminalText()).toContainText("tandem-flood");
  await page.keyboard.press("Control+C");
  await ide.runInTerminal("echo stopped-$((1+1))");
  await expect(ide.terminalText()).toContainText("stopped-2");
});
