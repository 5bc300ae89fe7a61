import { admin, expect, screenshotPath, test } from "./fixtures";
import { ReviewPage } from "./pages/review";

const source = (name: string) =>
  `import { oldName } from "./names";\n\nexport const ${name} = oldName("${name}"); // oldName\n`;

test("find in files across three files, then replace with a preview, one match excluded; open editors follow", async ({
  page,
  ide,
}) => {
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Find and replace");
  await files.writeFile("src/a.ts", source("a"));
  await files.writeFile("src/b.ts", source("b"));
  await files.writeFile("lib/c.ts", source("c"));
  await files.writeFile(".gitignore", "node_modules/\n");
  await files.writeFile("node_modules/dep/index.js", "oldName();\n");

  await page.keyboard.press("Control+Shift+F");
  const panel = page.getByTestId("search-panel");
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("search-input")).toBeFocused();
  await page.keyboard.type("oldName");

  const results = panel.getByTestId("search-results");
  const status = panel.getByTestId("search-status");
  const match = (path: string, line: number, column: number) =>
    results.locator(`[data-testid=search-match][data-path="${path}"][data-line="${line}"][data-column="${column}"]`);
  const fileRow = (path: string) => results.locator(`[data-testid=search-file][data-path="${path}"]`);
  await expect(results.getByTestId("search-file")).toHaveCount(3);
  await expect(status).toHaveText("9 results in 3 files");
  await expect(results).not.toContainText("index.js");

  // Ignored files only when asked; include and exclude globs narrow. A click on an option searches
  // at once (only typing waits for a pause): within two frames of the click the panel is searching
  // again or already shows the new results.
  const afterClick = await panel.getByTestId("search-ignored").evaluate(
    (button) =>
      new Promise<{ state: string | null | undefined; files: number }>((resolve) => {
        (button as HTMLElement).click();
        requestAnimationFrame(() =>
          requestAnimationFrame(() =>
            resolve({
              state: document.querySelector("[data-testid=search-status]")?.getAttribute("data-state"),
              files: document.querySelectorAll("[data-testid=search-file]").length,
            }),
          ),
        );
      }),
  );
  expect(afterClick.state === "searching" || afterClick.files === 4, JSON.stringify(afterClick)).toBe(true);
  await expect(results.getByTestId("search-file")).toHaveCount(4);
  await panel.getByTestId("search-ignored").click();
  await expect(results.getByTestId("search-file")).toHaveCount(3);
  await panel.getByTestId("search-details").click();
  await panel.getByTestId("search-include").fill("src/**");
  await expect(results.getByTestId("search-file")).toHaveCount(2);
  await panel.getByTestId("search-include").fill("");
  await panel.getByTestId("search-exclude").fill("lib");
  await expect(results.getByTestId("search-file")).toHaveCount(2);
  await panel.getByTestId("search-exclude").fill("");
  await expect(results.getByTestId("search-file")).toHaveCount(3);
  await page.screenshot({ path: screenshotPath("search-results") });

  // A click opens the file at the match. b.ts then gets unsaved typing; a.ts stays clean.
  await match("src/b.ts", 3, 18).click();
  await expect(ide.tab("src/b.ts")).toHaveAttribute("aria-selected", "true");
  await ide.expectEditorText('oldName("b")');
  await page.keyboard.press("Control+End");
  await page.keyboard.type("// mine");
  await match("src/a.ts", 3, 18).click();
  await expect(ide.tab("src/a.ts")).toHaveAttribute("aria-selected", "true");
  await ide.expectEditorText('oldName("a")');
  // The match is selected and the editor has the keys, as a person sees before typing: typing replaces it.
  await expect(ide.editor()).toHaveClass(/\bfocused\b/);
  await expect(ide.editor().locator(".selected-text")).not.toHaveCount(0);
  await page.keyboard.type("renamed");
  await ide.expectEditorText('export const a = renamed("a")');
  await page.keyboard.press("Control+Z");
  await ide.expectEditorText('export const a = oldName("a")');
  // The jump to the match happens once: back on the tab later, the cursor is where it was left. The
  // editor draws the file's text and its selection in the same frame, so the count is not early.
  await page.keyboard.press("End");
  await expect(ide.editor().locator(".selected-text")).toHaveCount(0);
  await ide.tab("src/b.ts").click();
  await ide.expectEditorText('oldName("b")');
  await ide.tab("src/a.ts").click();
  await ide.expectEditorText('oldName("a")');
  await expect(ide.editor().locator(".selected-text")).toHaveCount(0);

  // Replace: the comment's match in lib/c.ts is excluded; a file's preview shows its diff.
  await panel.getByTestId("search-toggle-replace").click();
  await panel.getByTestId("replace-input").fill("newName");
  await expect(match("src/a.ts", 1, 10)).toContainText("newName");
  const excluded = match("lib/c.ts", 3, 35);
  await excluded.hover();
  await excluded.getByTestId("search-dismiss-match").click();
  await expect(excluded).toHaveCount(0);
  await expect(status).toHaveText("8 results in 3 files");

  await fileRow("src/a.ts").hover();
  await fileRow("src/a.ts").getByTestId("search-preview-file").click();
  const preview = page.getByTestId("replace-preview");
  await expect(preview).toContainText('-export const a = oldName("a"); // oldName');
  await expect(preview).toContainText('+export const a = newName("a"); // newName');
  await page.screenshot({ path: screenshotPath("search-replace-preview") });
  await preview.getByRole("button", { name: "Close" }).click();
  await page.screenshot({ path: screenshotPath("search-replace") });

  await panel.getByTestId("replace-all").click();
  await expect(panel.getByTestId("replace-outcome")).toContainText("Replaced 8 occurrences in 3 files.");
  await files.expectFile("src/a.ts", source("a").replaceAll("oldName", "newName"));
  await files.expectFile("src/b.ts", source("b").replaceAll("oldName", "newName"));
  await files.expectFile(
    "lib/c.ts",
    `import { newName } from "./names";\n\nexport const c = newName("c"); // oldName\n`,
  );
  await files.expectFile("node_modules/dep/index.js", "oldName();\n");
  // The search runs again: only the excluded match is left.
  await expect(status).toHaveText("1 result in 1 file");

  // Open editors follow: the clean one shows the new text; the one with unsaved typing gets the
  // replacement merged in as an edit (a live document), the typing kept and still unsaved.
  await ide.expectEditorText('export const a = newName("a")');
  await ide.tab("src/b.ts").click();
  await ide.expectEditorText('export const b = newName("b")');
  await ide.expectEditorText("// mine");
  await expect(page.getByTestId("conflict-banner")).toHaveCount(0);
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
});

test("the palette opens the Search view; a bad regular expression is explained", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Search errors");
  await page.keyboard.press("Control+Shift+P");
  await page.keyboard.type("find in files");
  await page.keyboard.press("Enter");
  const panel = page.getByTestId("search-panel");
  await expect(panel.getByTestId("search-input")).toBeFocused();
  await page.keyboard.type("(unclosed");
  await expect(panel.getByTestId("search-status")).toHaveText("No results.");
  await panel.getByTestId("search-regex").click();
  await expect(panel.getByTestId("search-status")).toContainText("not a valid regular expression");

  await page.keyboard.press("Control+Shift+P");
  await page.keyboard.type("regular expressions in search");
  await page.keyboard.press("Enter");
  await expect(panel.getByTestId("search-regex")).toHaveAttribute("aria-pressed", "false");
  await expect(panel.getByTestId("search-status")).toHaveText("No results.");
});

test("the Search view fits the side bar at its narrowest: nothing scrolls sideways, and a result is still clicked", async ({
  page,
  ide,
}) => {
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Narrow search");
  await files.writeFile(
    "src/a-folder-with-a-rather-long-name/and-a-file-whose-name-goes-on.ts",
    `export const wide = "${"w".repeat(300)} needle ${"w".repeat(300)}";\n`,
  );
  await page.keyboard.press("Control+Shift+F");
  const panel = page.getByTestId("search-panel");
  expect((await panel.boundingBox())!.width).toBeLessThanOrEqual(200);
  await page.keyboard.type("needle");
  const results = panel.getByTestId("search-results");
  await expect(results.getByTestId("search-file")).toHaveCount(1);
  await panel.getByTestId("search-toggle-replace").click();
  await panel.getByTestId("search-details").click();

  // What people could scroll sideways (the view, its results, the side bar) is no wider than it
  // shows, and stays put while focus walks through every control (focus scrolls a clipped box).
  const sideways = () =>
    panel.evaluate((view) =>
      [view, view.querySelector(".search-results")!, view.closest(".side-bar")!]
        .filter((box) => box.scrollWidth > box.clientWidth || box.scrollLeft > 0)
        .map((box) => `${box.className}: ${box.scrollWidth} > ${box.clientWidth}, scrolled ${box.scrollLeft}`),
    );
  expect(await sideways()).toEqual([]);
  await panel.getByTestId("search-input").focus();
  for (let i = 0; i < 12; i++) await page.keyboard.press("Tab");
  expect(await sideways()).toEqual([]);
  await page.screenshot({ path: screenshotPath("search-narrow") });

  await results.getByTestId("search-match").first().click();
  await expect(ide.tab("src/a-folder-with-a-rather-long-name/and-a-file-whose-name-goes-on.ts")).toHaveAttribute(
    "aria-selected",
    "true",
  );
});

test("Enter searches at once, and the typing pause after it does not search again", async ({ page, ide }) => {
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Search once");
  await files.writeFile("src/a.ts", source("a"));
  await page.keyboard.press("Control+Shift+F");
  const panel = page.getByTestId("search-panel");
  await expect(panel.getByTestId("search-input")).toBeFocused();
  await page.keyboard.type("oldName");
  await page.keyboard.press("Enter");
  const first = panel.getByTestId("search-match").first();
  await expect(first).toBeVisible();
  const shown = await first.elementHandle();
  // Past the pause that follows the last key: the rows on screen are still the ones Enter found
  // (a second search would have cleared them and drawn new ones).
  await page.waitForTimeout(800);
  expect(await shown!.evaluate((row) => row.isConnected)).toBe(true);
  await expect(panel.getByTestId("search-status")).toHaveText("3 results in 1 file");
});
