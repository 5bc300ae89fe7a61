import { admin, expect, screenshotPath, test } from "./fixtures";

test("projects can be created, renamed and deleted", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Scratch");
  await page.goto("/");
  const row = page.getByTestId("project-Scratch");
  await row.getByTestId("project-rename").click();
  await page.getByTestId("project-rename-input").fill("Scratch 2");
  await page.getByTestId("project-rename-input").press("Enter");
  const renamed = page.getByTestId("project-Scratch 2");
  await expect(renamed).toBeVisible();
  await page.screenshot({ path: screenshotPath("projects-list") });

  await renamed.getByTestId("project-delete").click();
  await expect(page.getByTestId("confirm-button")).toBeDisabled();
  await page.getByTestId("confirm-input").fill("Scratch 2");
  await page.getByTestId("confirm-button").click();
  await expect(renamed).toHaveCount(0);
});

test("a file is created in the explorer, edited, saved, renamed, moved and deleted", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Demo");

  await ide.newFile("notes.md");
  await ide.typeInEditor("# Tandem notes");
  await expect(ide.tab("notes.md").getByTestId("tab-dirty")).toBeVisible();
  await ide.save();
  await expect(ide.tab("notes.md").getByTestId("tab-dirty")).toHaveCount(0);

  await page.reload();
  await ide.waitForLive();
  await ide.openFile("notes.md");
  await ide.expectEditorText("# Tandem notes");
  await page.screenshot({ path: screenshotPath("ide-file-open") });

  // Rename with F2 from the keyboard.
  await ide.treeItem("notes.md").click();
  await page.keyboard.press("F2");
  await page.getByTestId("rename-input").fill("readme.md");
  await page.getByTestId("rename-input").press("Enter");
  await expect(ide.treeItem("readme.md")).toBeVisible();
  await expect(ide.treeItem("notes.md")).toHaveCount(0);
  await expect(ide.tab("readme.md")).toBeVisible();

  // Move by drag and drop onto a folder.
  await ide.newFolder("docs");
  await ide.treeItem("readme.md").dragTo(ide.treeItem("docs"));
  await expect(ide.treeItem("docs/readme.md")).toBeVisible();
  await expect(ide.tab("docs/readme.md")).toBeVisible();

  // Delete with the Delete key, after confirming.
  await ide.treeItem("docs/readme.md").click();
  await page.keyboard.press("Delete");
  await expect(page.getByTestId("confirm-dialog")).toContainText("docs/readme.md will be deleted");
  await page.getByTestId("confirm-button").click();
  await expect(ide.treeItem("docs/readme.md")).toHaveCount(0);
  await expect(ide.tab("docs/readme.md")).toHaveCount(0);
});

test("ignored entries are dimmed and can be hidden", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.openProject("Demo");
  await ide.newFile(".gitignore");
  await ide.typeInEditor("build");
  await ide.save();
  await ide.newFolder("build");
  await expect(ide.treeItem("build")).toHaveAttribute("data-ignored", "true");
  await expect(ide.treeItem(".gitignore")).not.toHaveAttribute("data-ignored", "true");

  await page.getByTestId("explorer-toggle-ignored").click();
  await expect(ide.treeItem("build")).toHaveCount(0);
  await page.getByTestId("explorer-toggle-ignored").click();
  await expect(ide.treeItem("build")).toBeVisible();
});

test("keyboard navigation in the explorer opens files", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.openProject("Demo");
  await ide.newFolder("src");
  await ide.treeItem("src").click();
  await page.getByTestId("explorer-new-file").click();
  await page.getByTestId("new-entry-input").fill("main.ts");
  await page.getByTestId("new-entry-input").press("Enter");
  await expect(ide.treeItem("src/main.ts")).toBeVisible();
  await ide.tab("src/main.ts").getByTestId("tab-close").click();
  await expect(ide.tab("src/main.ts")).toHaveCount(0);

  await ide.treeItem("src").click(); // collapses src
  await expect(ide.treeItem("src/main.ts")).toHaveCount(0);
  await page.keyboard.press("ArrowRight"); // expands it again
  await expect(ide.treeItem("src/main.ts")).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await expect(ide.treeItem("src/main.ts")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(ide.tab("src/main.ts")).toHaveAttribute("aria-selected", "true");
});

test("panel sizes are remembered across a reload", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.openProject("Demo");
  const explorer = page.getByTestId("explorer");
  const before = (await explorer.boundingBox())!.width;
  const separator = (await page.getByTestId("separator-explorer").boundingBox())!;
  await page.mouse.move(separator.x + separator.width / 2, separator.y + 200);
  await page.mouse.down();
  await page.mouse.move(separator.x + 120, separator.y + 200, { steps: 8 });
  await page.mouse.up();
  const after = (await explorer.boundingBox())!.width;
  expect(after).toBeGreaterThan(before + 80);

  await page.reload();
  await ide.waitForLive();
  await expect.poll(async () => Math.round((await explorer.boundingBox())!.width)).toBe(Math.round(after));
});
