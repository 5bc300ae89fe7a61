import { admin, expect, screenshotPath, test } from "./fixtures";
import { ReviewPage } from "./pages/review";

test("the command palette toggles the theme, and the choice survives a reload", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Palette");
  const html = page.locator("html");
  // Dark unless the run chose light for its screenshots (E2E_THEME=light).
  const first = (await html.getAttribute("data-theme")) === "light" ? "light" : "dark";
  const other = first === "light" ? "dark" : "light";
  await expect(html).toHaveAttribute("data-theme", first);

  await page.keyboard.press("Control+Shift+P");
  const palette = page.getByTestId("command-palette");
  await expect(palette).toBeVisible();
  await expect(palette).toHaveAttribute("data-mode", "commands");
  await page.keyboard.type("theme");
  await expect(palette.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(palette).toHaveCount(0);
  await expect(html).toHaveAttribute("data-theme", other);
  if (other === "light") await page.screenshot({ path: screenshotPath("ide-light") });

  await page.reload();
  await ide.waitForLive();
  await expect(html).toHaveAttribute("data-theme", other);

  await page.keyboard.press("Control+Shift+P");
  await expect(palette).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(palette).toHaveCount(0);

  await page.keyboard.press("Control+Shift+P");
  await page.keyboard.type("THEME");
  await page.keyboard.press("Enter");
  await expect(html).toHaveAttribute("data-theme", first);
});

test("Ctrl+P opens a file from a few letters of its path; the palette runs what the panels offer", async ({
  page,
  ide,
}) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Quick open");
  await review.writeFile("src/lib/math.ts", "export const add = (a: number, b: number) => a + b;\n");
  await review.writeFile("src/app/main.ts", 'import { add } from "../lib/math";\n');
  await review.writeFile("test/math.test.ts", "// tests\n");
  await review.writeFile(".gitignore", "dist/\n");
  await review.writeFile("dist/math.js", "// built\n");

  // Quick open: letters in order, the best match first, ignored files left out.
  await page.keyboard.press("Control+P");
  const palette = page.getByTestId("command-palette");
  await expect(palette).toHaveAttribute("data-mode", "files");
  await page.keyboard.type("libmath");
  const results = palette.getByTestId("palette-file");
  await expect(results.first()).toContainText("math.ts");
  await expect(results.first()).toContainText("src/lib");
  await expect(palette).not.toContainText("dist");
  await page.screenshot({ path: screenshotPath("palette-quick-open") });
  await page.keyboard.press("Enter");
  await expect(palette).toHaveCount(0);
  await expect(ide.tab("src/lib/math.ts")).toBeVisible();
  await ide.expectEditorText("export const add");

  // Typing ">" switches to commands, which come from the panels on screen.
  await page.keyboard.press("Control+P");
  await page.keyboard.type(">");
  await expect(palette).toHaveAttribute("data-mode", "commands");
  await expect(palette.getByTestId("palette-command-file-save")).toContainText("Save src/lib/math.ts");
  await expect(palette.getByTestId("palette-command-go-to-file")).toContainText("Ctrl+P");
  await page.screenshot({ path: screenshotPath("palette-commands") });
  await page.keyboard.type("new term");
  await expect(palette.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("terminal-host")).toBeVisible();

  // With nothing typed, the open tabs come first.
  await page.keyboard.press("Control+P");
  await expect(results.first()).toContainText("math.ts");
  await page.keyboard.press("Escape");
  await expect(palette).toHaveCount(0);

  // Files made while it is closed: one in an ignored folder stays out (the listing, read again at
  // the opening, says so; the file's event alone cannot), one elsewhere comes in.
  await ide.treeItem("dist").click();
  await expect(ide.treeItem("dist/math.js")).toBeVisible();
  await review.writeFile("dist/matrix.js", "// built\n");
  await expect(ide.treeItem("dist/matrix.js")).toBeVisible(); // its event has come
  await page.keyboard.press("Control+P");
  await page.keyboard.type("matrix");
  await expect(palette.locator(".palette-empty")).toHaveText("No file matches");
  await page.keyboard.press("Escape");
  await review.writeFile("src/lib/matrix.ts", "// m\n");
  await page.keyboard.press("Control+P");
  await page.keyboard.type("matrix");
  await expect(results).toHaveCount(1);
  await expect(results.first()).toContainText("src/lib");
});
