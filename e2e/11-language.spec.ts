import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { ReviewPage } from "./pages/review";

// The editor against the project's real language servers (typescript-language-server here):
// diagnostics as squiggles and in the Problems panel, and VS Code's keys.

const SHAPES = "export function area(width: number, height: number): number {\n  return width * height;\n}\n";
const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: "es2022", module: "esnext", moduleResolution: "bundler", noEmit: true },
});

test("language servers: problems, hover, F12, Shift+F12, F2, Ctrl+Shift+O, Ctrl+T, Ctrl+., Shift+Alt+F", async ({
  page,
  ide,
}) => {
  test.setTimeout(180_000);
  const review = new ReviewPage(page);
  // The cursor goes to a symbol by Ctrl+G "line:column" (token spans differ between themes).
  const goTo = async (line: number, column: number) => {
    await ide.editor().locator(".view-lines").click();
    await page.keyboard.press("Control+G");
    await page.keyboard.type(`${line}:${column}`);
    await page.keyboard.press("Enter");
  };
  await ide.signIn(admin);
  await ide.createProject("Language");
  await review.writeFile("tsconfig.json", TSCONFIG);
  await review.writeFile("src/shapes.ts", SHAPES);
  await review.writeFile("src/a.ts", 'import { area } from "./shapes";\nexport const small = area(1, 2);\n');
  await review.writeFile("src/b.ts", 'import { area } from "./shapes";\nexport const large = area(10, 20);\n');
  await review.writeFile("src/broken.ts", 'export const count: number = "three";\n');
  await review.writeFile("src/ugly.ts", "export   const  tidy=1\n");
  await ide.waitForTreeSettled();

  // A type error: a squiggle in the editor, a count in the status bar, an entry in Problems.
  await ide.treeItem("src").click();
  await ide.openFile("src/broken.ts");
  await expect(ide.editor().locator(".squiggly-error")).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId("problems-errors")).toHaveText("⊗ 1");
  await page.getByTestId("problems-status").click();
  const problem = page.getByTestId("problems-panel").getByTestId("problem");
  await expect(problem).toHaveCount(1);
  await expect(problem).toContainText("Type 'string' is not assignable to type 'number'.");
  await expect(problem).toContainText("src/broken.ts:1:14");
  await page.screenshot({ path: screenshotPath("language-problems") });
  await page.getByTestId("problems-status").click();

  // Hover shows the type from the server.
  await ide.openFile("src/a.ts");
  await goTo(2, 22);
  await page.keyboard.press("Control+K");
  await page.keyboard.press("Control+I");
  await expect(page.locator(".monaco-hover:not(.hidden)").first()).toContainText(
    "area(width: number, height: number): number",
    { timeout: 20_000 },
  );
  await page.screenshot({ path: screenshotPath("language-hover") });

  // F12: to the definition in another file.
  await goTo(2, 22);
  await page.keyboard.press("F12");
  await expect(ide.tab("src/shapes.ts")).toHaveAttribute("aria-selected", "true");

  // Shift+F12: references in a peek view.
  await goTo(1, 17);
  await page.keyboard.press("Shift+F12");
  const peek = page.locator(".peekview-widget");
  await expect(peek).toBeVisible();
  await expect(peek.locator(".peekview-title")).toContainText("References (5)");
  await page.screenshot({ path: screenshotPath("language-references") });
  await page.keyboard.press("Escape");

  // Ctrl+Shift+O: the file's outline.
  await page.keyboard.press("Control+Shift+O");
  const quickInput = page.locator(".quick-input-widget");
  await expect(quickInput).toBeVisible();
  await expect(quickInput.locator(".quick-input-list")).toContainText("area");
  await page.keyboard.press("Escape");

  // F2: rename across the three files, written through the API; the open editors follow.
  await goTo(1, 17);
  await page.keyboard.press("F2");
  const renameBox = page.locator(".rename-box input");
  await expect(renameBox).toBeVisible();
  await renameBox.fill("surface");
  await page.keyboard.press("Enter");
  await expect.poll(() => review.readFile("src/b.ts")).toContain("surface(10, 20)");
  expect(await review.readFile("src/a.ts")).toContain('import { surface } from "./shapes"');
  await ide.expectEditorText("export function surface(");

  // Ctrl+T: a symbol anywhere in the workspace.
  await ide.openFile("src/b.ts");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("Control+T");
  const search = page.getByTestId("symbol-search");
  await expect(search).toBeVisible();
  await page.getByTestId("symbol-search-input").fill("count");
  await expect(search.getByTestId("symbol-search-item").first()).toContainText("src/broken.ts");
  await page.screenshot({ path: screenshotPath("language-workspace-symbols") });
  await page.keyboard.press("Enter");
  await expect(ide.tab("src/broken.ts")).toHaveAttribute("aria-selected", "true");

  // Ctrl+.: the quick fix that adds the missing import.
  await review.writeFile("src/c.ts", "export const z = surface(1, 1);\n");
  await ide.waitForTreeSettled();
  await ide.openFile("src/c.ts");
  await expect(ide.editor().locator(".squiggly-error")).toHaveCount(1, { timeout: 30_000 });
  await goTo(1, 18);
  await page.keyboard.press("Control+.");
  const fixes = page.locator(".action-widget").first();
  await expect(fixes).toContainText('Add import from "./shapes"');
  await page.screenshot({ path: screenshotPath("language-quick-fix") });
  await fixes.getByText('Add import from "./shapes"').click();
  await ide.expectEditorText('import { surface } from "./shapes";');
  await expect(ide.editor().locator(".squiggly-error")).toHaveCount(0, { timeout: 30_000 });

  // Shift+Alt+F: format the document with the server's formatter.
  await ide.openFile("src/ugly.ts");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("Shift+Alt+F");
  await ide.expectEditorText("export const tidy = 1");
});

// A server added by configuration (TANDEM_LANGUAGE_SERVERS in playwright.config.ts: a second
// typescript-language-server, serving `*.mts` by its glob) serves the editor as the built-in ones
// do: the editor connects to it, not to the built-in TypeScript server that Monaco's language for
// .mts would otherwise pick.
test("a configured language server: its squiggles, hover and F12 in the editor", async ({ page, ide }) => {
  test.setTimeout(180_000);
  const review = new ReviewPage(page);
  const servers: string[] = [];
  page.on("websocket", (ws) => {
    const url = new URL(ws.url());
    if (url.pathname === "/api/language/ws") servers.push(url.searchParams.get("server") ?? "");
  });
  await ide.signIn(admin);
  await ide.createProject("Configured language");
  await review.writeFile("tsconfig.json", TSCONFIG);
  await review.writeFile("src/shapes.mts", SHAPES);
  await review.writeFile(
    "src/use.mts",
    'import { area } from "./shapes.mjs";\nexport const wrong: string = area(1, 2);\n',
  );
  await ide.waitForTreeSettled();

  await ide.treeItem("src").click();
  await ide.openFile("src/use.mts");
  await expect(ide.editor().locator(".squiggly-error")).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId("problems-errors")).toHaveText("⊗ 1");

  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("Control+G");
  await page.keyboard.type("2:31");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+K");
  await page.keyboard.press("Control+I");
  await expect(page.locator(".monaco-hover:not(.hidden)").first()).toContainText(
    "area(width: number, height: number): number",
    { timeout: 20_000 },
  );
  await page.screenshot({ path: screenshotPath("language-configured-hover") });
  await page.keyboard.press("Escape");
  await page.keyboard.press("F12");
  await expect(ide.tab("src/shapes.mts")).toHaveAttribute("aria-selected", "true");
  expect(new Set(servers)).toEqual(new Set(["mts"]));

  // Ctrl+T asks the configured server too: `area` is in a file only it serves.
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("Control+T");
  const search = page.getByTestId("symbol-search");
  await expect(search).toBeVisible();
  await page.getByTestId("symbol-search-input").fill("area");
  await expect(search.getByTestId("symbol-search-item").first()).toContainText("src/shapes.mts");
});

test("an agent edit that breaks the types lists the new error on its tool card", async ({ page, ide }) => {
  test.setTimeout(120_000);
  const review = new ReviewPage(page);
  const agent = new AgentPanel(page);
  await agent.script([
    { text: "Reading first.", toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/a.ts" } }] },
    {
      match: "export const small",
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: { path: "src/a.ts", old_string: "surface(1, 2)", new_string: 'surface(1, "2")' },
        },
      ],
    },
    { match: "new error", text: "That broke the types; I will fix it." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("New errors");
  await review.writeFile("tsconfig.json", TSCONFIG);
  await review.writeFile("src/shapes.ts", SHAPES.replace("area", "surface"));
  await review.writeFile("src/a.ts", 'import { surface } from "./shapes";\nexport const small = surface(1, 2);\n');
  await agent.ask("Pass the height as a string");
  const edit = agent.toolCard("Edit src/a.ts");
  await expect(edit).toHaveAttribute("data-status", "awaiting_approval");
  await edit.getByTestId("approve").click();
  await expect(edit).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  const problems = edit.getByTestId("tool-new-problems");
  await expect(problems).toContainText("src/a.ts:2:33");
  await expect(problems).toContainText("Argument of type 'string' is not assignable to parameter of type 'number'.");
  await expect(agent.assistantMessages().last()).toContainText("broke the types");
  await edit.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("language-agent-new-errors") });
  expect(await review.readFile("src/a.ts")).toContain('surface(1, "2")');
});
