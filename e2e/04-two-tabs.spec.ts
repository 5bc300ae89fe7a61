import type { BrowserContext, Page } from "@playwright/test";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { IdePage } from "./pages/ide";
import { ReviewPage } from "./pages/review";

// Files that are not shared live (over the live size limit, or where the live socket cannot be
// reached) follow the disk as before: a clean tab reloads, a dirty one gets the "changed on disk"
// banner. These tests turn the live socket away (as the server does for such a file) to test that
// path; live documents are e2e/16-coedit.spec.ts.
const notLive = (target: Page | BrowserContext) =>
  target.routeWebSocket(/\/api\/live\/ws/, (ws) => ws.close({ code: 4000, reason: "Not shared live in this test." }));

test("a second tab follows saves from the first, and flags a conflict when it has unsaved changes", async ({
  page,
  ide,
  context,
}) => {
  await notLive(context);
  await ide.signIn(admin);
  await ide.createProject("Two tabs");
  await ide.newFile("shared.txt");
  await ide.typeInEditor("first version");
  await ide.save();

  const other = new IdePage(await context.newPage());
  await other.openProject("Two tabs");
  await other.openFile("shared.txt");
  await other.expectEditorText("first version");

  // A clean tab reloads silently.
  await page.bringToFront();
  await ide.typeInEditor(" plus more");
  await ide.save();
  await other.expectEditorText("first version plus more");

  // A dirty tab gets the conflict banner instead.
  await other.page.bringToFront();
  await other.typeInEditor(" (their edit)");
  await page.bringToFront();
  await ide.typeInEditor(" and mine");
  await ide.save();
  const banner = other.page.getByTestId("conflict-banner");
  await expect(banner).toContainText("This file changed on disk");
  await other.page.screenshot({ path: screenshotPath("conflict-banner") });

  await banner.getByTestId("conflict-compare").click();
  await expect(other.page.getByTestId("diff-editor").locator(".monaco-diff-editor")).toBeVisible();
  await other.page.screenshot({ path: screenshotPath("conflict-compare") });

  await banner.getByTestId("conflict-keep").click();
  await expect(other.page.getByTestId("conflict-banner")).toHaveCount(0);
  await expect(other.page.getByTestId("save-state")).toHaveText("Saved");
  await ide.expectEditorText("(their edit)");
});

test("a change on disk under unsaved edits shows the conflict banner; Reload takes the disk's version", async ({
  page,
  ide,
}) => {
  await notLive(page);
  await ide.signIn(admin);
  await ide.createProject("Changed on disk");
  await new ReviewPage(page).writeFile("shared.txt", "first version");
  await ide.openFile("shared.txt");

  // The terminal changes the file behind the editor's back while it has unsaved changes.
  await ide.typeInEditor("!");
  await ide.openTerminal();
  await ide.runInTerminal("echo from-terminal > shared.txt");
  await expect(page.getByTestId("conflict-banner")).toBeVisible();
  await page.getByTestId("conflict-reload").click();
  await expect(page.getByTestId("conflict-banner")).toHaveCount(0);
  await ide.expectEditorText("from-terminal");
  await expect(ide.tab("shared.txt").getByTestId("tab-dirty")).toHaveCount(0);
});

test("a save that meets a newer version on disk shows the conflict banner; Keep mine overwrites", async ({
  page,
  ide,
  pageErrors,
}) => {
  // The save that meets the newer version is refused on purpose.
  pageErrors.allow(/status of 409 .*\/api\/trpc\/fs\.write/);
  const review = new ReviewPage(page);
  await notLive(page);
  await ide.signIn(admin);
  await ide.createProject("Save meets newer");
  await review.writeFile("shared.txt", "first version");
  const projectUrl = page.url();
  // Without the live change feed the editor only learns of the change when it saves.
  await page.routeWebSocket(/\/api\/trpc\/ws/, () => {});
  await page.goto(projectUrl);
  await ide.openFile("shared.txt");
  await ide.typeInEditor("mine-");

  await review.replaceFile("shared.txt", "changed-behind\n");

  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+s");
  await expect(page.getByTestId("conflict-banner")).toContainText("This file changed on disk");
  await page.getByTestId("conflict-keep").click();
  await expect(page.getByTestId("save-state")).toHaveText("Saved");

  await expect.poll(() => review.readFile("shared.txt")).toContain("mine-");
});

test("Merge both combines the changes on disk with unsaved edits to other lines", async ({ page, ide }) => {
  const review = new ReviewPage(page);
  await notLive(page);
  await ide.signIn(admin);
  await ide.createProject("Merge both");
  await review.writeFile("merge.txt", "alpha\nbeta\ngamma\n");
  await ide.openFile("merge.txt");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+Home");
  await page.keyboard.type("my-");
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");

  await review.replaceFile("merge.txt", "alpha\nbeta\nGAMMA from disk\n");
  const banner = page.getByTestId("conflict-banner");
  await expect(banner).toBeVisible();
  await banner.getByTestId("conflict-merge").click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByTestId("merge-conflicts-banner")).toHaveCount(0);
  await ide.expectEditorText(/my-alpha\s+beta\s+GAMMA from disk/);
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await page.screenshot({ path: screenshotPath("conflict-merged") });
  await ide.save();
  await review.expectFile("merge.txt", "my-alpha\nbeta\nGAMMA from disk\n");
});

test("an undone Merge both does not let a save overwrite the newer version on disk", async ({
  page,
  ide,
  pageErrors,
}) => {
  // The save after the undone merge meets the newer version on disk and is refused on purpose.
  pageErrors.allow(/status of 409 .*\/api\/trpc\/fs\.write/);
  const review = new ReviewPage(page);
  await notLive(page);
  await ide.signIn(admin);
  await ide.createProject("Undone merge");
  await review.writeFile("lines.txt", "alpha\nbeta\ngamma\n");
  await ide.openFile("lines.txt");

  // I change the second line and do not save; someone else changes the same line and saves.
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+Home");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("End");
  await page.keyboard.type("-mine");
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await review.replaceFile("lines.txt", "alpha\nbeta-theirs\ngamma\n");

  // The banner's Merge both keeps both between markers; Ctrl+Z takes the merge back, as it says.
  const banner = page.getByTestId("conflict-banner");
  await banner.getByTestId("conflict-merge").click();
  await expect(page.getByTestId("merge-conflicts-banner")).toBeVisible();
  await ide.expectEditorText("beta-theirs");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+z");
  await expect.poll(() => ide.editorText()).not.toContain("beta-theirs");

  // Saving now must not write over their saved line without asking: the banner comes back.
  await page.keyboard.press("ControlOrMeta+s");
  await expect(banner).toBeVisible();
  expect(await review.readFile("lines.txt")).toBe("alpha\nbeta-theirs\ngamma\n");
  await page.screenshot({ path: screenshotPath("conflict-after-undone-merge") });
});
