import fs from "node:fs/promises";
import path from "node:path";
import type { Page, WebSocketRoute } from "@playwright/test";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { ReviewPage } from "./pages/review";

/** Holds the editor's code (Monaco's chunks, the only ones over 1 MB) back until the returned function is called. */
async function holdEditorCode(page: Page): Promise<() => void> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/_next/static/chunks/*.js", async (route) => {
    const response = await route.fetch();
    const body = await response.body();
    if (body.length > 1_000_000) await released;
    await route.fulfill({ response, body });
  });
  return () => release();
}

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
  // An empty project's explorer points to its New File button, so the button shows without hover.
  await page.mouse.move(0, 0);
  await expect(page.getByTestId("explorer-empty")).toContainText("Create a file with the buttons above");
  await expect(page.getByTestId("explorer-new-file")).toBeVisible();

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
  await ide.createProject("Ignored entries");
  await ide.newFile(".gitignore");
  await ide.typeInEditor("build");
  await ide.save();
  await ide.newFolder("build");
  await expect(ide.treeItem("build")).toHaveAttribute("data-ignored", "true");
  await expect(ide.treeItem(".gitignore")).not.toHaveAttribute("data-ignored", "true");

  // The header's actions show while the pointer is over the explorer or the focus is in it (as in
  // VS Code), so the project's name has the room otherwise.
  await ide.editor().locator(".view-lines").click();
  await page.mouse.move(0, 0);
  await expect(page.getByTestId("explorer-new-file")).toBeHidden();
  await expect(page.getByTestId("explorer-toggle-ignored")).toBeHidden();
  await page.getByTestId("explorer").hover();
  await expect(page.getByTestId("explorer-new-file")).toBeVisible();
  await ide.clickExplorerAction("explorer-toggle-ignored");
  await expect(ide.treeItem("build")).toHaveCount(0);
  // Hiding ignored files is not the default: the toggle stays in sight while it does.
  await ide.editor().locator(".view-lines").click();
  await page.mouse.move(0, 0);
  await expect(page.getByTestId("explorer-new-file")).toBeHidden();
  await expect(page.getByTestId("explorer-toggle-ignored")).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByTestId("explorer-toggle-ignored")).toBeVisible();
  await ide.clickExplorerAction("explorer-toggle-ignored");
  await expect(ide.treeItem("build")).toBeVisible();
});

test("the IDE does not wait for git: with git status as slow as on a large repository, the explorer shows and a file opens", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Slow git");
  await ide.newFile("while-git-works.txt");
  await ide.typeInEditor("opened before git answered");
  await ide.save();
  // Every request that asks for git status is held for 8 s.
  let held = 0;
  await page.route("**/api/trpc/**", async (route) => {
    if (new URL(route.request().url()).pathname.includes("git.status")) {
      held++;
      await new Promise((resolve) => setTimeout(resolve, 8_000));
    }
    await route.continue().catch(() => {});
  });
  const reloaded = Date.now();
  await page.reload();
  await ide.treeItem("while-git-works.txt").click({ timeout: 4_000 });
  await ide.expectEditorText("opened before git answered");
  expect(held).toBeGreaterThan(0);
  expect(Date.now() - reloaded).toBeLessThan(8_000);
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("the first screen's data is asked for once, by the page's HTML, and the IDE shows it", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("First screen");
  await ide.newFile("first.txt");
  // Every tRPC query the page sends, one entry per call of a batch, with its input.
  const calls: { path: string; input: { path?: string } | null }[] = [];
  // The old document leaves first (about:blank): it may send requests until a new one commits.
  const address = page.url();
  await page.goto("about:blank");
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith("/api/trpc/") || url.pathname === "/api/trpc/ws") return;
    const input = JSON.parse(url.searchParams.get("input") ?? "null");
    url.pathname
      .slice("/api/trpc/".length)
      .split(",")
      .forEach((path, i) => calls.push({ path, input: (url.searchParams.has("batch") ? input?.[i] : input)?.json }));
  });
  await page.goto(address);
  await expect(ide.treeItem("first.txt")).toBeVisible();
  await expect(page.getByTestId("project-title")).toHaveText("First screen");
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "live");
  // The batch of lib/first-screen.ts went first, and nothing asked for its data again.
  expect(calls.slice(0, 4).map((c) => c.path)).toEqual(["account.status", "project.get", "fs.tree", "session.list"]);
  expect(calls.filter((c) => c.path === "account.status")).toHaveLength(1);
  expect(calls.filter((c) => c.path === "project.get")).toHaveLength(1);
  expect(calls.filter((c) => c.path === "fs.tree" && c.input?.path === "")).toHaveLength(1);

  // The first screen's sheets declare Monaco's icon font face (app/layout.tsx): a face that comes
  // with the editor's sheets, after the first paint, has the browser resolve every element's fonts again.
  const html = await (await page.request.get(address)).text();
  const sheets = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*>/g)].map(
    (link) => /href="([^"]+)"/.exec(link[0])![1]!,
  );
  expect(sheets.length).toBeGreaterThan(0);
  const css = await Promise.all(
    sheets.map(async (href) => (await page.request.get(new URL(href, address).href)).text()),
  );
  expect(css.some((text) => /@font-face\s*\{[^}]*font-family:\s*"?codicon/.test(text))).toBe(true);
});

test("the empty editor lays out the editor's font out of sight, as the file's text will draw it", async ({
  page,
  ide,
}) => {
  // EditorFontWarmUp: the same face, size and features as the placeholder's, so the first file's
  // text finds them resolved (a size or feature set laid out for the first time costs synchronous
  // calls to the browser's font service).
  await ide.signIn(admin);
  await ide.createProject("Font before the text");
  await expect(page.getByTestId("editor-empty")).toBeVisible();
  const warmUp = await page.locator(".editor-font-warm-up").evaluate((element) => {
    const style = getComputedStyle(element);
    return { size: style.fontSize, family: style.fontFamily, features: style.fontFeatureSettings };
  });
  const text = await page.evaluate(() => {
    const probe = document.createElement("div");
    probe.className = "text-placeholder";
    document.body.append(probe);
    const style = getComputedStyle(probe);
    const features = style.fontFeatureSettings;
    probe.remove();
    return features;
  });
  expect(warmUp).toMatchObject({ size: "13px", features: text });
  expect(warmUp.family).toContain("monospace");
});

test("a file's text shows before the editor's code is in, where the editor will show it, and the editor takes over in place", async ({
  page,
  ide,
}) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Text before the editor");
  await review.writeFile("first.txt", "the first file\n");
  await review.writeFile("long.txt", Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n"));
  await ide.openFile("long.txt");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+End");
  await expect(ide.editor().locator(".view-lines")).toContainText("row 300");
  await page.waitForTimeout(500); // the scroll is remembered 300 ms after it stops

  const release = await holdEditorCode(page);
  // Counted from the moment the new document replaces the old: the page being left may still send its polls.
  const queries: string[] = [];
  let reloaded = false;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) reloaded = true;
  });
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (reloaded && url.pathname.startsWith("/api/trpc/") && url.pathname !== "/api/trpc/ws")
      queries.push(url.pathname.slice(10));
  });
  await page.reload();

  // The reopened tab's text came with the page's first request, scrolled where it was left.
  const placeholder = page.getByTestId("editor-placeholder");
  await expect(placeholder).toContainText("row 300");
  await expect(placeholder).not.toContainText("row 250");
  await expect(page.getByTestId("editor-area").locator(".monaco-editor")).toHaveCount(0);
  expect(queries[0]).toBe("account.status,project.get,fs.tree,session.list,fs.preview");
  expect(queries.filter((q) => q.includes("fs.preview"))).toHaveLength(1);
  await page.screenshot({ path: screenshotPath("editor-text-before-monaco") });
  const rowBox = (locator: ReturnType<typeof page.locator>) =>
    locator.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return { x: box.x, y: box.y };
    });
  const lastRow = placeholder.locator(".text-placeholder-line", { hasText: /^row\s300/ });
  // A file opened from the explorer meanwhile shows its text as soon as it is read.
  await ide.treeItem("first.txt").click();
  await expect(placeholder).toContainText("the first file");
  await ide.tab("long.txt").click();
  await expect(placeholder).toContainText("row 300");

  // Its live document in, the text takes typing still before the editor: a click after the last
  // row's text and keys there, Enter keeping the line's indentation.
  await expect(page.getByTestId("editor-early-input")).toBeEditable();
  const box = await lastRow.boundingBox();
  await page.mouse.click(box!.x + box!.width - 4, box!.y + box!.height / 2);
  await page.keyboard.type(" typed early");
  // Another change to the file meanwhile (another person's, a program's) comes in around the
  // typing, which goes on where it was.
  const rows = Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n");
  await review.replaceFile("long.txt", `row 0\n${rows}`);
  await expect(placeholder.locator(".text-placeholder-row", { hasText: "row 300 typed early" })).toContainText("301");
  await page.keyboard.press("Enter");
  await page.keyboard.type("  indented");
  await page.keyboard.press("Enter");
  await expect(placeholder).toContainText("row 300 typed early");
  await expect(placeholder).toContainText("indented");
  await page.screenshot({ path: screenshotPath("editor-text-typed-before-monaco") });
  const before = await rowBox(lastRow);
  await expect(page.getByTestId("editor-area").locator(".monaco-editor")).toHaveCount(0);

  release();
  await expect(placeholder).toHaveCount(0);
  const line = ide.editor().locator(".view-line", { hasText: /^row\s300\styped\searly$/ });
  await expect(line).toBeVisible();
  // In place: not a pixel's move.
  const after = await rowBox(line);
  expect(Math.abs(after.x - before.x)).toBeLessThan(1);
  expect(Math.abs(after.y - before.y)).toBeLessThan(1);
  await page.screenshot({ path: screenshotPath("editor-text-monaco-in-place") });
  // The editor took the keyboard where the typing left it: the next keys follow on, with no click.
  await page.keyboard.type("then in the editor");
  await ide.expectEditorText("row 300 typed early\n  indented\n  then in the editor");
  await ide.save();
  await review.expectFile("long.txt", `row 0\n${rows} typed early\n  indented\n  then in the editor`);
  // Ctrl+Z in the editor takes back what was typed before it was in too, and never the other change.
  for (let i = 0; i < 8; i++) await page.keyboard.press("ControlOrMeta+z");
  await expect(ide.editor().locator(".view-lines")).not.toContainText("typed early");
  await ide.save();
  await review.expectFile("long.txt", `row 0\n${rows}`);
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("files made from outside while the page loads, or while its socket is down, show in the explorer without a reload", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Outside changes");
  await ide.newFile("first.txt");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  // The change feed's socket: what the page sends waits here until `release()` (the subscription
  // has not reached the server yet), then goes through.
  let held: Array<string | Buffer> | null = [];
  let live: { page: WebSocketRoute; server: WebSocketRoute } | null = null;
  await page.routeWebSocket(/\/api\/trpc\/ws/, (ws) => {
    const server = ws.connectToServer();
    live = { page: ws, server };
    ws.onMessage((message) => (held ? held.push(message) : server.send(message)));
    server.onMessage((message) => ws.send(message));
  });
  const release = () => {
    for (const message of held ?? []) live!.server.send(message);
    held = null;
  };
  const state = page.getByTestId("connection-state");

  // While the page loads: the explorer has its listing, the feed is not up yet, a terminal makes a file.
  await page.reload();
  await expect(ide.treeItem("first.txt")).toBeVisible();
  await expect(state).not.toHaveAttribute("data-state", "live");
  await fs.writeFile(path.join(workspace, "made-while-loading.txt"), "from a terminal\n");
  await page.waitForTimeout(500); // the server's watcher has reported it before the feed starts
  await expect(ide.treeItem("made-while-loading.txt")).toHaveCount(0);
  release();
  await expect(state).toHaveAttribute("data-state", "live", { timeout: 15_000 });
  await expect(ide.treeItem("made-while-loading.txt")).toBeVisible();

  // While the socket is down: a file made, another deleted; the feed reconnects and catches up.
  held = [];
  live!.server.close();
  live!.page.close({ code: 4000, reason: "Dropped by the test." });
  await expect(state).not.toHaveAttribute("data-state", "live");
  await fs.writeFile(path.join(workspace, "made-while-offline.txt"), "from git\n");
  await fs.rm(path.join(workspace, "first.txt"));
  await page.waitForTimeout(500);
  await expect(ide.treeItem("made-while-offline.txt")).toHaveCount(0);
  await expect(ide.treeItem("first.txt")).toBeVisible();
  await expect.poll(() => held!.length).toBeGreaterThan(0); // the reconnected page asks again
  release();
  await expect(state).toHaveAttribute("data-state", "live", { timeout: 15_000 });
  await expect(ide.treeItem("made-while-offline.txt")).toBeVisible();
  await expect(ide.treeItem("first.txt")).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("explorer-outside-changes") });
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("keyboard navigation in the explorer opens files", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Explorer keys");
  await ide.newFolder("src");
  await ide.treeItem("src").click();
  await ide.clickExplorerAction("explorer-new-file");
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
  await ide.createProject("Panel sizes");
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

test("a middle click closes a tab without pasting into the file that gets focus", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Middle click");
  await ide.newFile("first.txt");
  await ide.typeInEditor("first file");
  await ide.save();
  await ide.newFile("second.txt");
  await ide.typeInEditor("selected words");
  await ide.save();
  // Selecting text makes it Linux's primary selection, which a middle click pastes on release.
  await page.keyboard.press("ControlOrMeta+A");
  await page.evaluate(() =>
    window.addEventListener(
      "mouseup",
      (event) =>
        event.button === 1 &&
        ((window as { middleReleaseCancelled?: boolean }).middleReleaseCancelled = event.defaultPrevented),
    ),
  );

  await ide.tab("second.txt").click({ button: "middle" });
  await expect(ide.tab("second.txt")).toHaveCount(0);
  await expect(ide.tab("first.txt")).toHaveAttribute("aria-selected", "true");
  expect(await page.evaluate(() => (window as { middleReleaseCancelled?: boolean }).middleReleaseCancelled)).toBe(true);
  await ide.expectEditorText("first file");
  await expect(ide.tab("first.txt").getByTestId("tab-dirty")).toHaveCount(0);
});

test("Ctrl+B, Ctrl+J and Ctrl+` toggle the explorer, the bottom panel and the terminal; at 1024 px the editor keeps room", async ({
  page,
  ide,
}) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await ide.signIn(admin);
  await ide.createProject("Toggles");
  await new ReviewPage(page).writeFile("first.txt", "first file");
  await ide.openTerminal();
  await ide.openFile("first.txt");
  const editorWidth = async () => (await page.getByTestId("editor-area").boundingBox())!.width;
  // The editor has about half of a 1024 px window (it had 489 px beside a 19% explorer and a 33% agent panel).
  expect(await editorWidth()).toBeGreaterThanOrEqual(500);
  await page.screenshot({ path: screenshotPath("ide-1024") });

  // From inside the editor, as from anywhere.
  await ide.editor().locator(".view-lines").click();
  const explorer = page.getByTestId("explorer");
  const before = await editorWidth();
  await page.keyboard.press("ControlOrMeta+B");
  await expect(explorer).not.toBeVisible();
  expect(await editorWidth()).toBeGreaterThan(before + 150);
  await page.keyboard.press("ControlOrMeta+B");
  await expect(explorer).toBeVisible();

  // The bottom panel collapses to nothing (the editor takes its height) and comes back.
  const editorHeight = async () => Math.round((await page.getByTestId("editor-area").boundingBox())!.height);
  const withPanel = await editorHeight();
  await page.keyboard.press("ControlOrMeta+J");
  await expect.poll(editorHeight).toBeGreaterThan(withPanel + 150);
  await page.keyboard.press("ControlOrMeta+J");
  await expect.poll(editorHeight).toBe(withPanel);
  // Ctrl+` as in VS Code: from the editor it goes to the terminal; from the terminal it hides the
  // panel; from there it shows the panel with the terminal focused.
  const terminalInput = page.getByTestId("terminal-host").locator("textarea");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("Control+Backquote");
  await expect(terminalInput).toBeFocused();
  expect(await editorHeight()).toBe(withPanel);
  await page.keyboard.press("Control+Backquote");
  await expect.poll(editorHeight).toBeGreaterThan(withPanel + 150);
  await page.keyboard.press("Control+Backquote");
  await expect.poll(editorHeight).toBe(withPanel);
  await expect(terminalInput).toBeFocused();

  // A divider is grabbed a few pixels beside its 1 px line.
  const width = (await explorer.boundingBox())!.width;
  const separator = (await page.getByTestId("separator-explorer").boundingBox())!;
  await page.mouse.move(separator.x + 5, separator.y + 200);
  await page.mouse.down();
  await page.mouse.move(separator.x + 85, separator.y + 200, { steps: 8 });
  await page.mouse.up();
  expect((await explorer.boundingBox())!.width).toBeGreaterThan(width + 60);
});

test("open tabs come back, scrolled where they were, after a reload and a visit to settings; the explorer follows the active tab and marks unsaved files", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Tabs restored");
  await new ReviewPage(page).writeFile("first.txt", "first file");
  await ide.newFile("long.txt");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.insertText(Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n"));
  await ide.save();
  await page.keyboard.press("ControlOrMeta+End");
  await expect(ide.editor().locator(".view-lines")).toContainText("row 300");
  await ide.openFile("first.txt");
  await ide.tab("long.txt").click();
  await expect(ide.treeItem("long.txt")).toHaveAttribute("aria-selected", "true");
  await ide.tab("first.txt").click();
  await expect(ide.treeItem("first.txt")).toHaveAttribute("aria-selected", "true");
  await ide.tab("long.txt").click();

  await page.reload();
  await ide.waitForLive();
  await expect(ide.tab("first.txt")).toBeVisible();
  await expect(ide.tab("long.txt")).toHaveAttribute("aria-selected", "true");
  await expect(ide.editor().locator(".view-lines")).toContainText("row 300");
  await expect(ide.editor().locator(".view-lines")).not.toContainText("row 1\n");

  await page.getByTestId("project-settings").click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByTestId("editor-tabs")).toHaveCount(0);
  await page.goBack();
  await expect(ide.tab("long.txt")).toHaveAttribute("aria-selected", "true");
  await expect(ide.tab("first.txt")).toBeVisible();
  await expect(ide.editor().locator(".view-lines")).toContainText("row 300");

  // Unsaved changes show in the explorer, and go when saved.
  await ide.typeInEditor("!");
  await expect(ide.treeItem("long.txt")).toHaveAttribute("data-unsaved", "true");
  await page.screenshot({ path: screenshotPath("ide-tabs-restored-unsaved") });
  await ide.save();
  await expect(ide.treeItem("long.txt")).not.toHaveAttribute("data-unsaved");
});

test("after a reload the restored file takes the keyboard as its text shows, the editor once it is ready, but never from the chat input the person clicked into meanwhile", async ({
  page,
  ide,
}) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Keyboard restored");
  await review.writeFile("typed.txt", "first line\n");
  await ide.openFile("typed.txt");
  await ide.expectEditorText("first line");
  const editorHasKeyboard = () =>
    page.evaluate(() => !!document.activeElement?.closest("[data-testid='editor'] .monaco-editor"));

  // Reloaded: the keys typed once the editor is there, without a click, go into the file.
  await page.reload();
  await expect(ide.editor().locator(".view-lines")).toContainText("first line");
  await expect(page.getByTestId("editor-placeholder")).toHaveCount(0);
  await expect.poll(editorHasKeyboard, { message: "the restored editor has the keyboard" }).toBe(true);
  await page.screenshot({ path: screenshotPath("editor-keyboard-restored") });
  await page.keyboard.type("typed after a reload ");
  await ide.expectEditorText("typed after a reload first line");
  await ide.save();
  await review.expectFile("typed.txt", "typed after a reload first line\n");
  await page.waitForTimeout(500); // the cursor is remembered 300 ms after it stops

  // Reloaded with the editor's code held back: the restored text takes the keyboard as it shows,
  // at the remembered cursor, and the keys go into the file (the new session's box, which takes it
  // when nothing has it, does not).
  const release = await holdEditorCode(page);
  await page.reload();
  await expect(page.getByTestId("editor-early-input")).toBeFocused();
  await page.keyboard.type("again ");
  await expect(page.getByTestId("editor-placeholder")).toContainText("typed after a reload again first line");
  // Then the person clicks into the chat's input and types there before the editor is ready; the
  // editor, once ready, leaves the keyboard where it is.
  const chat = page.getByTestId("composer-input");
  await chat.click();
  await page.keyboard.type("a question for the agent");
  await page.screenshot({ path: screenshotPath("editor-keyboard-chat-before-editor") });
  release();
  await expect(ide.editor().locator(".view-lines")).toContainText("typed after a reload");
  await expect(page.getByTestId("editor-placeholder")).toHaveCount(0);
  await page.waitForTimeout(500);
  await expect(chat).toBeFocused();
  await page.keyboard.type(", still here");
  await expect(chat).toHaveValue("a question for the agent, still here");
  expect(await editorHasKeyboard()).toBe(false);
  await ide.expectEditorText("typed after a reload again first line");
  await expect(ide.editor().locator(".view-lines")).not.toContainText("still here");
  await page.screenshot({ path: screenshotPath("editor-keyboard-chat-kept") });
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("typing into a file's text while it loads after a reload (its live document and the editor's code held back) goes into the file, around another's change made meanwhile", async ({
  page,
  ide,
}) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Typed while loading");
  await review.writeFile("notes.txt", "first line\nsecond line\n");
  await ide.openFile("notes.txt");
  await ide.expectEditorText("second line");

  let releaseLive: () => void = () => {};
  const liveReleased = new Promise<void>((resolve) => {
    releaseLive = resolve;
  });
  await page.routeWebSocket(/\/api\/live\/ws/, async (ws) => {
    await liveReleased;
    ws.connectToServer();
  });
  const releaseEditor = await holdEditorCode(page);
  await page.reload();

  // The text from the page's first request, its live document not in yet: a click after the
  // first line's text and keys there.
  const placeholder = page.getByTestId("editor-placeholder");
  await expect(placeholder).toContainText("second line");
  await expect(page.getByTestId("editor-early-input")).toBeEditable();
  const firstRow = placeholder.locator(".text-placeholder-line", { hasText: /^first line$/ });
  const box = await firstRow.boundingBox();
  await page.mouse.click(box!.x + box!.width - 4, box!.y + box!.height / 2);
  await page.keyboard.type(" typed early");
  await expect(placeholder).toContainText("first line typed early");
  // Meanwhile the file changes on disk (another person, a program): a line above the typing.
  await review.replaceFile("notes.txt", "zeroth line\nfirst line\nsecond line\n");

  // The live document comes in: the typing is put onto its text, and typing goes on there.
  releaseLive();
  await expect(placeholder).toContainText("zeroth line");
  await expect(placeholder.locator(".text-placeholder-line", { hasText: "first line typed early" })).toBeVisible();
  await page.keyboard.type(",");
  await expect(placeholder).toContainText("first line typed early,");
  await page.screenshot({ path: screenshotPath("editor-typed-while-loading") });

  // The editor takes over where the typing was.
  releaseEditor();
  await expect(placeholder).toHaveCount(0);
  await page.keyboard.type(" then in the editor");
  await ide.expectEditorText("zeroth line\nfirst line typed early, then in the editor\nsecond line");
  await ide.save();
  await review.expectFile("notes.txt", "zeroth line\nfirst line typed early, then in the editor\nsecond line\n");
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("typed into before the editor, a file its live socket turns away gets the typing in the editor, unsaved, and a save writes it", async ({
  page,
  ide,
}) => {
  const review = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Typed without a live document");
  await review.writeFile("plain.txt", "alpha\nbeta\n");
  await page.routeWebSocket(/\/api\/live\/ws/, (ws) =>
    ws.close({ code: 4000, reason: "Not shared live in this test." }),
  );
  const release = await holdEditorCode(page);
  await page.reload();
  await ide.treeItem("plain.txt").click();

  const placeholder = page.getByTestId("editor-placeholder");
  await expect(placeholder).toContainText("beta");
  const alpha = placeholder.locator(".text-placeholder-line", { hasText: /^alpha$/ });
  const box = await alpha.boundingBox();
  await page.mouse.click(box!.x + box!.width - 4, box!.y + box!.height / 2);
  await page.keyboard.type(" one");
  await expect(placeholder).toContainText("alpha one");

  // No live document: the editor's model gets it as one edit, unsaved, and the caret goes on there.
  release();
  await expect(placeholder).toHaveCount(0);
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await page.keyboard.type(" two");
  await ide.expectEditorText("alpha one two\nbeta");
  await ide.save();
  await review.expectFile("plain.txt", "alpha one two\nbeta\n");
  await page.unrouteAll({ behavior: "ignoreErrors" });
});
