import type { Page } from "@playwright/test";
import { admin, expect, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import type { IdePage } from "./pages/ide";
import { ReviewPage } from "./pages/review";

// Live co-editing with three browsers: Ada (owner) and Ian (member) type in the same file at once,
// a terminal changes it under them, each undoes only their own typing, one save is everyone's;
// Vera (viewer) watches and cannot write; Ada follows Ian into another file.

const TEAM = "Pair crew";
const PROJECT = "Pairing";
const ian: TestUser = { name: "Ian Pair", email: "ian.pair@example.com", password: "staple-lamp-orbit-42" };
const vera: TestUser = { name: "Vera Viewer", email: "vera.viewer@example.com", password: "quiet-owl-harbor-17" };

async function invite(owner: Page, person: IdePage, role: "member" | "viewer") {
  await owner.goto("/");
  await owner.getByTestId("team-settings").click();
  await owner.getByTestId("team-invite-role").selectOption(role);
  await owner.getByTestId("team-invite-create").click();
  const link = await owner.getByTestId("team-invite-link").inputValue();
  await person.page.goto(link);
  await person.page.getByTestId("join-accept").click();
  await expect(person.page.getByTestId("team-role")).toHaveText(role);
}

/** Puts the cursor at the end of line `line` of the file on screen. */
async function cursorAtEndOf(person: IdePage, line: number) {
  await person.editor().locator(".view-lines").click();
  await person.page.keyboard.press("ControlOrMeta+Home");
  for (let i = 1; i < line; i++) await person.page.keyboard.press("ArrowDown");
  await person.page.keyboard.press("End");
}

test("two people type into the same line at once, through a sed from the terminal, and undo only their own typing", async ({
  page,
  ide,
  browser,
}) => {
  test.setTimeout(180_000);
  await ide.signIn(admin);
  const ianIde = await signUpPerson(browser, page, ian);
  const veraIde = await signUpPerson(browser, page, vera);
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(TEAM);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await invite(page, ianIde, "member");
  await invite(page, veraIde, "viewer");

  await page.goto("/");
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await ide.createProject(PROJECT);
  const review = new ReviewPage(page);
  await review.writeFile("pair.txt", "hello world\nsecond line\nthird line\n");
  await ide.openFile("pair.txt");
  await ianIde.openProject(PROJECT);
  await ianIde.openFile("pair.txt");
  await veraIde.openProject(PROJECT);
  await veraIde.openFile("pair.txt");

  // Each tab shows who else has the file open.
  await expect(ide.tab("pair.txt").getByTestId("tab-peers")).toHaveAttribute("title", /Ian Pair/);
  await expect(ide.tab("pair.txt").getByTestId("tab-peers")).toHaveAttribute("title", /Vera Viewer/);

  // Both type at the end of the first line at the same moment.
  await cursorAtEndOf(ide, 1);
  await cursorAtEndOf(ianIde, 1);
  await Promise.all([page.keyboard.type(" ada", { delay: 30 }), ianIde.page.keyboard.type(" ian", { delay: 30 })]);
  const firstLine = async (person: IdePage) => (await person.editorText()).split("\n")[0];
  await expect.poll(async () => (await firstLine(ide)).length).toBe("hello world".length + 8);
  await expect.poll(() => firstLine(ianIde)).toBe(await firstLine(ide));
  await expect.poll(() => firstLine(veraIde)).toBe(await firstLine(ide));
  const typed = (await firstLine(ide)).slice("hello world".length);
  expect([...typed].sort().join("")).toBe([..." ada ian"].sort().join(""));
  // Everyone's dirty mark is the same: the server's.
  await expect(ianIde.page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await expect(ide.tab("pair.txt").getByTestId("tab-dirty")).toBeVisible();

  // Each sees the other's named cursor.
  await cursorAtEndOf(ianIde, 3);
  await cursorAtEndOf(veraIde, 2); // a viewer's cursor shows too, once she has placed it
  await expect(page.locator(".live-caret")).toHaveCount(2);
  await page.screenshot({ path: screenshotPath("coedit-two-cursors") });
  await ianIde.page.screenshot({ path: screenshotPath("coedit-two-cursors-ian") });

  // Ian undoes: only his typing goes, Ada's stays, in every browser.
  await ianIde.page.keyboard.press("ControlOrMeta+z");
  await expect.poll(() => firstLine(ide)).toBe("hello world ada");
  await expect.poll(() => firstLine(ianIde)).toBe("hello world ada");
  await ianIde.page.keyboard.press("ControlOrMeta+Shift+z");
  await expect.poll(async () => (await firstLine(ide)).length).toBe("hello world".length + 8);

  // A terminal rewrites the file (sed -i) while both have unsaved typing: it arrives in both as an
  // edit, and nobody's typing is lost.
  await ide.openTerminal();
  await ide.runInTerminal("sed -i 's/second/SECOND/' pair.txt");
  await ide.expectEditorText("SECOND line");
  await ianIde.expectEditorText("SECOND line");
  expect((await firstLine(ide)).length).toBe("hello world".length + 8);
  expect(await firstLine(ianIde)).toBe(await firstLine(ide));

  // Ian keeps typing through it; one save by Ian writes everything and clears the mark for all.
  await cursorAtEndOf(ianIde, 3);
  await ianIde.page.keyboard.type(" by ian");
  await ianIde.save();
  await expect(page.getByTestId("save-state")).toHaveText("Saved");
  const saved = await review.readFile("pair.txt");
  expect(saved).toContain("SECOND line");
  expect(saved).toContain("third line by ian");
  expect(saved?.split("\n")[0]).toBe(await firstLine(ide));

  // Vera watches live and cannot write: her editor is read-only and the server would refuse anyway.
  await expect.poll(() => veraIde.editorText()).toContain("third line by ian");
  await cursorAtEndOf(veraIde, 2);
  await veraIde.page.keyboard.type("vera was here");
  await page.waitForTimeout(500);
  expect(await ide.editorText()).not.toContain("vera was here");
  expect(await veraIde.editorText()).not.toContain("vera was here");
  await veraIde.page.screenshot({ path: screenshotPath("coedit-viewer") });

  // Follow mode: Ada follows Ian; his next file opens on her screen, until she moves.
  await review.writeFile("other.txt", "another file\n");
  await ide.tab("pair.txt").locator(`[data-testid=tab-peer][data-name="${ian.name}"]`).click();
  await expect(page.getByTestId("follow-banner")).toContainText(ian.name);
  await ianIde.openFile("other.txt");
  await expect(ide.tab("other.txt")).toHaveAttribute("aria-selected", "true");
  await ide.expectEditorText("another file");
  await page.screenshot({ path: screenshotPath("coedit-follow") });
  await ide.editor().locator(".view-lines").click();
  await expect(page.getByTestId("follow-banner")).toHaveCount(0);
  await ianIde.tab("pair.txt").click();
  await page.waitForTimeout(500);
  await expect(ide.tab("other.txt")).toHaveAttribute("aria-selected", "true");
});
