import { admin, expect, test } from "./fixtures";
import { ReviewPage } from "./pages/review";

// Quick Open hands the keyboard to the file it opened: what the person types next goes into that
// file, whether its tab was open already or not.

test("after Quick Open, typing goes into the chosen file", async ({ page, ide }) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Quick open keyboard");
  await review.writeFile("src/first.ts", "export const first = 1;\n");
  await review.writeFile("src/second.ts", "export const second = 2;\n");

  for (const [name, typed] of [
    ["first", "// typed after quick open\n"],
    ["second", "// into the second\n"],
    ["first", "// and back, its tab open already\n"],
  ] as const) {
    await page.keyboard.press("Control+P");
    const palette = page.getByTestId("command-palette");
    await expect(palette).toHaveAttribute("data-mode", "files");
    await page.keyboard.type(name);
    await expect(palette.getByTestId("palette-file").first()).toContainText(`${name}.ts`);
    await page.keyboard.press("Enter");
    await expect(palette).toHaveCount(0);
    // As soon as the file shows, the keys go to it: no click into the editor first.
    await ide.expectEditorText(`export const ${name}`);
    await page.keyboard.press("Control+Home");
    await page.keyboard.type(typed);
    await ide.expectEditorText(typed.trim());
  }
});
