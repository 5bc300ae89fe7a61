import type { Page } from "@playwright/test";
import { admin, expect, newContext, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import type { IdePage } from "./pages/ide";
import { ReviewPage } from "./pages/review";

// The agent as a live participant, and presence in the explorer: Ada (owner) sees in her explorer
// which files Lin (member) has open; Lin types in a file while Ada's agent edits another part of
// it; Lin sees the edit arrive with the agent's named cursor, keeps her typing, and one save
// writes both.

const TEAM = "Agent crew";
const PROJECT = "Agent live";
const lin: TestUser = { name: "Lin Live", email: "lin.live@example.com", password: "amber-river-kite-58" };

async function invite(owner: Page, person: IdePage) {
  await owner.goto("/");
  await owner.getByTestId("team-settings").click();
  await owner.getByTestId("team-invite-role").selectOption("member");
  await owner.getByTestId("team-invite-create").click();
  const link = await owner.getByTestId("team-invite-link").inputValue();
  await person.page.goto(link);
  await person.page.getByTestId("join-accept").click();
  await expect(person.page.getByTestId("team-role")).toHaveText("member");
}

const SOURCE = [
  "export function area(width: number, height: number) {",
  "  return width * height;",
  "}",
  "",
  "export function greet(name: string) {",
  '  return "hello " + name;',
  "}",
  "",
].join("\n");

test("the agent's edit arrives live with its cursor while a person types in the same file; the explorer shows who has what open", async ({
  page,
  ide,
  browser,
  pageErrors,
}) => {
  test.setTimeout(180_000);
  // The share page's session view asks for the file listing (@-completion) that a guest may not read.
  pageErrors.allow(/status of 401 .*\/api\/trpc\/fs\.files/);
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  await agent.script([
    { match: "Round the area", toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "shapes.ts" } }] },
    {
      match: "width * height",
      toolCalls: [
        {
          id: "e1",
          name: "edit",
          arguments: {
            path: "shapes.ts",
            old_string: "  return width * height;",
            new_string: "  return Math.round(width * height);",
          },
        },
      ],
    },
    { match: "Edited", text: "area() rounds now." },
  ]);
  await ide.signIn(admin);
  const linIde = await signUpPerson(browser, page, lin);
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(TEAM);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await invite(page, linIde);
  await page.goto("/");
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await ide.createProject(PROJECT);
  await review.writeFile("shapes.ts", SOURCE);
  await review.writeFile("lib/util.ts", "export const two = 2;\n");

  // Lin opens both files; Ada's explorer shows her initial by the file, and a dot on the closed folder.
  await linIde.openProject(PROJECT);
  await linIde.page.getByTestId("tree-item-lib").click();
  await linIde.openFile("lib/util.ts");
  await linIde.openFile("shapes.ts");
  const row = (path: string) => page.getByTestId(`tree-item-${path}`);
  await expect(row("shapes.ts").getByTestId("tree-peers")).toHaveAttribute("title", `Open by ${lin.name}`);
  await expect(row("lib").getByTestId("tree-folder-peers")).toHaveAttribute("title", `${lin.name}: util.ts`);
  await page.getByTestId("explorer").screenshot({ path: screenshotPath("explorer-presence") });

  // Lin types in greet() and does not save.
  await linIde.editor().locator(".view-lines").click();
  await linIde.page.keyboard.press("ControlOrMeta+End");
  await linIde.page.keyboard.press("ArrowUp");
  await linIde.page.keyboard.press("ArrowUp");
  await linIde.page.keyboard.press("End");
  await linIde.page.keyboard.type(" // Lin was here");
  await expect(linIde.page.getByTestId("save-state")).toHaveText("Unsaved changes");

  // Ada's agent edits area(): it reaches Lin's editor at once, with the agent's cursor.
  await agent.ask("Round the area");
  await agent.toolCard("Edit shapes.ts").getByTestId("approve").click();
  await linIde.expectEditorText("Math.round(width * height)");
  await expect(linIde.page.locator(".live-caret")).not.toHaveCount(0);
  await expect
    .poll(() => linIde.page.evaluate(() => [...document.querySelectorAll("style")].map((s) => s.textContent).join("")))
    .toContain("Agent");
  await linIde.page.screenshot({ path: screenshotPath("agent-live-cursor") });
  expect(await linIde.editorText()).toContain('"hello " + name; // Lin was here');
  // The disk has the agent's change alone until Lin saves; then both.
  expect(await review.readFile("shapes.ts")).toBe(SOURCE.replace("width * height", "Math.round(width * height)"));
  await linIde.save();
  await expect
    .poll(() => review.readFile("shapes.ts"))
    .toBe(SOURCE.replace("width * height", "Math.round(width * height)").replace("name;", "name; // Lin was here"));
  // The cursor fades after a few seconds.
  await expect(linIde.page.locator(".live-caret")).toHaveCount(0, { timeout: 15_000 });

  // A view link to Ada's session watches the file live, with Lin's cursor, read-only.
  await page.getByTestId("session-share").click();
  await page.getByTestId("share-label").fill("Watchers");
  await page.getByTestId("share-create").click();
  const shareUrl = await page.getByTestId("share-url").inputValue();
  await page.keyboard.press("Escape");
  const guest = await (await newContext(browser)).newPage();
  await guest.goto(shareUrl);
  await guest.getByTestId("share-file-shapes.ts").click();
  await expect(guest.getByTestId("share-live-text")).toContainText("// Lin was here");
  await linIde.page.keyboard.type(" and back");
  await expect(guest.getByTestId("share-live-text")).toContainText("// Lin was here and back");
  await expect(guest.locator(`[data-testid=share-caret][data-name="${lin.name}"]`)).toBeVisible();
  await guest.screenshot({ path: screenshotPath("share-live-viewer") });
});
