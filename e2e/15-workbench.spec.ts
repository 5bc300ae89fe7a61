import type { Page } from "@playwright/test";
import { admin, expect, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import { ReviewPage } from "./pages/review";
import { SourceControlPage } from "./pages/source-control";

// The IDE on a real repository's scale (issue 37): a side bar that widens and stays so, search
// results and tabs that name their files, one problem count, a 900 px window, actions by role,
// terminals lost in a restart, and a diff that opens at its change.

const width = (page: Page, testId: string) =>
  page.getByTestId(testId).evaluate((element) => element.getBoundingClientRect().width);

test("the side bar widens, keeps its width in pixels after a reload, and search results show file names first", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Wide side bar");
  const review = new ReviewPage(page);
  const deep = "packages/storefront/src/features/checkout/components/summary";
  await review.writeFile(`${deep}/summary.tsx`, "export const needle = 1;\n");
  await review.writeFile("needle.md", "needle\n");

  // At the default width a file name of a usual length is whole; its folder is dimmed, cut from the left, and the
  // full path shows on hover.
  await page.getByTestId("side-tab-search").click();
  await page.getByTestId("search-input").fill("needle");
  const row = page.locator(`[data-testid=search-file][data-path="${deep}/summary.tsx"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("title", `${deep}/summary.tsx`);
  const name = row.getByTestId("search-file-name");
  expect(await name.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  const folder = row.getByTestId("search-file-dir");
  expect(await folder.evaluate((element) => getComputedStyle(element).direction)).toBe("rtl");
  expect(await folder.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  await page.screenshot({ path: screenshotPath("workbench-search-1280") });

  // Dragged to 420 px, it stays 420 px in a reload at another window width.
  const separator = (await page.getByTestId("separator-explorer").boundingBox())!;
  await page.mouse.move(separator.x + 0.5, separator.y + 300);
  await page.mouse.down();
  await page.mouse.move(420, separator.y + 300, { steps: 8 });
  await page.mouse.up();
  const dragged = await width(page, "panel-explorer");
  expect(dragged).toBeGreaterThan(400);
  await page.setViewportSize({ width: 1440, height: 800 });
  await page.reload();
  await ide.waitForLive();
  expect(Math.abs((await width(page, "panel-explorer")) - dragged)).toBeLessThanOrEqual(2);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("two tabs of the same file name show the folder that tells them apart", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Same names");
  const review = new ReviewPage(page);
  await review.writeFile("src/a/utils.ts", "export const a = 1;\n");
  await review.writeFile("src/b/utils.ts", "export const b = 2;\n");
  await review.writeFile("src/index.ts", "export {};\n");
  await ide.waitForTreeSettled();
  for (const folder of ["src", "src/a", "src/b"]) {
    await ide.treeItem(folder).click();
    await ide.waitForTreeSettled();
  }
  await ide.openFile("src/a/utils.ts");
  await expect(ide.tab("src/a/utils.ts").getByTestId("tab-folder")).toHaveCount(0);
  await ide.openFile("src/b/utils.ts");
  await ide.openFile("src/index.ts");
  await expect(ide.tab("src/a/utils.ts").getByTestId("tab-folder")).toHaveText("a");
  await expect(ide.tab("src/b/utils.ts").getByTestId("tab-folder")).toHaveText("b");
  await expect(ide.tab("src/index.ts").getByTestId("tab-folder")).toHaveCount(0);
  await page.getByTestId("editor-tabs").screenshot({ path: screenshotPath("workbench-tabs") });
});

test("the Problems panel counts what the status bar counts", async ({ page, ide }) => {
  test.setTimeout(120_000);
  await ide.signIn(admin);
  await ide.createProject("Problem counts");
  const review = new ReviewPage(page);
  await review.writeFile(
    "tsconfig.json",
    JSON.stringify({
      compilerOptions: { strict: true, target: "es2022", module: "esnext", moduleResolution: "bundler", noEmit: true },
    }),
  );
  // One error, and an unused local: a hint (faded code), which is not a problem.
  await review.writeFile(
    "src/count.ts",
    'export const count: number = "three";\nexport function f() {\n  const unused = 1;\n}\n',
  );
  await ide.waitForTreeSettled();
  await ide.treeItem("src").click();
  await ide.openFile("src/count.ts");
  await expect(ide.editor().locator(".squiggly-error")).toHaveCount(1, { timeout: 60_000 });
  await expect(ide.editor().locator(".squiggly-inline-unnecessary")).not.toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId("problems-errors")).toHaveText("⊗ 1");
  await expect(page.getByTestId("problems-warnings")).toHaveText("⚠ 0");
  await page.getByTestId("problems-status").click();
  await expect(page.getByTestId("problems-count")).toHaveText("1");
  await expect(page.getByTestId("problems-panel").getByTestId("problem")).toHaveCount(1);
});

test("at 900x700 the editor keeps at least half the width, after a wide side bar too", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Narrow window");
  await page.screenshot({ path: screenshotPath("workbench-1280") });
  // A side bar widened in a large window...
  const separator = (await page.getByTestId("separator-explorer").boundingBox())!;
  await page.mouse.move(separator.x + 0.5, separator.y + 300);
  await page.mouse.down();
  await page.mouse.move(600, separator.y + 300, { steps: 8 });
  await page.mouse.up();
  // ...then the same browser in a 900 px window.
  await page.setViewportSize({ width: 900, height: 700 });
  await page.reload();
  await ide.waitForLive();
  expect(await width(page, "panel-main")).toBeGreaterThanOrEqual(450);
  expect(await width(page, "panel-explorer")).toBeGreaterThanOrEqual(140);
  expect(await width(page, "panel-agent")).toBeGreaterThanOrEqual(270);

  // A first visit at 900 px, nothing remembered.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await ide.waitForLive();
  expect(await width(page, "panel-main")).toBeGreaterThanOrEqual(450);
  await page.screenshot({ path: screenshotPath("workbench-900") });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("viewers see no action that changes files, and members none that only admins may take", async ({
  page,
  ide,
  browser,
}) => {
  test.setTimeout(120_000);
  const team = "Workbench roles";
  const person: TestUser = { name: "Vera Viewer", email: "vera@example.com", password: "quiet-harbor-lantern-7" };

  await ide.signIn(admin);
  const vera = await signUpPerson(browser, page, person);
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(team);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(team);
  await ide.createProject("Team files");
  await new ReviewPage(page).writeFile("notes.md", "# notes\n");
  await page.goto("/");
  await page.getByTestId("team-settings").click();
  await page.getByTestId("team-invite-role").selectOption("viewer");
  await page.getByTestId("team-invite-create").click();
  const joinLink = await page.getByTestId("team-invite-link").inputValue();

  await vera.page.goto(joinLink);
  await vera.page.getByTestId("join-accept").click();
  await expect(vera.page.getByTestId("team-role")).toHaveText("viewer");

  // The project list: no Rename or Delete; the explorer: no New File, no Rename or Delete.
  const row = vera.page.getByTestId("project-Team files");
  await expect(row).toBeVisible();
  await expect(row.getByTestId("project-rename")).toHaveCount(0);
  await expect(row.getByTestId("project-delete")).toHaveCount(0);
  await row.getByTestId("project-open").click();
  await vera.waitForLive();
  await vera.page.getByTestId("explorer").hover();
  await expect(vera.page.getByTestId("explorer-refresh")).toBeVisible();
  await expect(vera.page.getByTestId("explorer-new-file")).toHaveCount(0);
  await vera.treeItem("notes.md").click({ button: "right" });
  await expect(vera.page.getByTestId("context-menu")).toContainText("Copy Path");
  await expect(vera.page.getByTestId("menu-rename")).toHaveCount(0);
  await expect(vera.page.getByTestId("menu-delete")).toHaveCount(0);
  await expect(vera.page.getByTestId("menu-new-file")).toHaveCount(0);
  await vera.page.keyboard.press("Escape");
  await vera.page.getByTestId("file-tree").focus();
  await vera.page.keyboard.press("F2");
  await expect(vera.page.getByTestId("rename-input")).toHaveCount(0);

  // Made a member: files are theirs to change, the project's name and existence are not.
  await page.reload();
  await page.getByTestId(`member-${person.email}`).getByTestId("member-role").selectOption("member");
  await expect(page.getByTestId(`member-${person.email}`).getByTestId("member-role")).toHaveValue("member");
  await vera.page.goto("/");
  await expect(vera.page.getByTestId("team-role")).toHaveText("member");
  await expect(row.getByTestId("project-open")).toBeVisible();
  await expect(row.getByTestId("project-rename")).toHaveCount(0);
  await expect(row.getByTestId("project-delete")).toHaveCount(0);
  await row.getByTestId("project-open").click();
  await vera.waitForLive();
  await vera.page.getByTestId("explorer").hover();
  await expect(vera.page.getByTestId("explorer-new-file")).toBeVisible();
  await vera.treeItem("notes.md").click({ button: "right" });
  await expect(vera.page.getByTestId("menu-rename")).toBeVisible();
  await vera.page.context().close();

  // The team's admin sees both.
  await page.goto("/");
  await expect(page.getByTestId("project-Team files").getByTestId("project-rename")).toBeVisible();
  await expect(page.getByTestId("project-Team files").getByTestId("project-delete")).toBeVisible();
});

test("a terminal the server lost in a restart says so, and offers a new one", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Restarted terminals");
  await ide.openTerminal();
  await expect(page.getByTestId("terminal-tab-0")).toBeVisible();
  const projectId = new ReviewPage(page).projectId();
  // What this browser remembers of a terminal made before the server last started (this run's
  // server keeps its terminals in memory, so a restart is one it no longer lists).
  await page.evaluate((key) => {
    const seen = JSON.parse(localStorage.getItem(key) ?? "[]") as unknown[];
    const lost = {
      id: "00000000-0000-4000-8000-000000000001",
      title: "Terminal 0",
      createdAt: "2020-01-01T00:00:00.000Z",
    };
    localStorage.setItem(key, JSON.stringify([...seen, lost]));
    localStorage.setItem(`tandem-terminal:${key.split(":")[1]}`, lost.id);
  }, `tandem-terminals:${projectId}`);
  await page.reload();
  await ide.waitForLive();
  const ended = page.getByTestId("terminal-ended-tab");
  await expect(ended).toHaveText(/Terminal 0 \(ended\)/);
  await expect(ended).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("terminal-ended")).toContainText("This terminal ended when the server restarted");
  await page.getByTestId("terminal-panel").screenshot({ path: screenshotPath("workbench-terminal-ended") });
  await page.getByTestId("terminal-ended-new").click();
  await expect(page.getByTestId("terminal-tab-1")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("terminal")).toHaveAttribute("data-status", "connected");
  // Closing the ended tab forgets it, across reloads too.
  await ended.getByTestId("terminal-close").click();
  await expect(ended).toHaveCount(0);
  await page.reload();
  await ide.waitForLive();
  await expect(page.getByTestId("terminal-tab-0")).toBeVisible();
  await expect(page.getByTestId("terminal-ended-tab")).toHaveCount(0);
});

test("the Source Control diff opens at the first change", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Diff position");
  const review = new ReviewPage(page);
  const lines = Array.from({ length: 240 }, (_, i) => `line ${i + 1}`);
  await review.writeFile("long.txt", `${lines.join("\n")}\n`);
  const scm = new SourceControlPage(page);
  await page.getByTestId("side-tab-scm").click();
  await page.getByTestId("scm-init").click();
  await expect(scm.row("changes", "long.txt")).toBeVisible();
  await scm.stage("long.txt");
  await scm.commit("A long file");
  await expect(page.getByTestId("scm-clean")).toBeVisible();

  lines[199] = "the one changed line";
  await review.replaceFile("long.txt", `${lines.join("\n")}\n`);
  await scm.row("changes", "long.txt").click();
  // The modified side's own lines, not the view zone that shows a removed line (inline diffs).
  const modified = page.getByTestId("git-diff-view").locator(".editor.modified .view-lines:not(.line-delete)");
  await expect(modified).toContainText("the one changed line");
  await page.screenshot({ path: screenshotPath("workbench-git-diff") });
});
