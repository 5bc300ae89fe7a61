import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { SourceControlPage } from "./pages/source-control";

// A session on a branch of its own: on a git project, "New session" offers a new branch from the
// branch checked out; the agent's new file lands in the session's worktree, not in the main tree;
// the IDE's tree switcher shows that tree (named in the URL, so a reload keeps it); merging the
// session brings the file into the main tree.

test.describe.configure({ timeout: 120_000 });

test("a session on its own branch, its tree in the IDE, merged into main", async ({ page, ide, pageErrors }) => {
  // The write's approval preview looks for shout.ts before it exists.
  pageErrors.allow(/status of 404 .*\/api\/trpc\/fs\.read/);
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "Add a shout",
      text: "Adding **shout.ts** on this branch.",
      toolCalls: [
        {
          id: "call_write",
          name: "write_file",
          arguments: { path: "shout.ts", content: 'export const shout = "HELLO";\n' },
        },
      ],
    },
    { match: "shout.ts", text: "Done: shout.ts is on the branch." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Branches");
  await ide.newFile("app.ts");
  await ide.typeInEditor('export const greeting = "hello";');
  await ide.save();
  const scm = new SourceControlPage(page);
  await page.getByTestId("side-tab-scm").click();
  await page.getByTestId("scm-init").click();
  await expect(page.getByTestId("source-control")).toBeVisible();
  await scm.stage("app.ts");
  await scm.commit("first");
  await scm.showExplorer();

  await agent.newSession();
  await expect(page.getByTestId("tree-choice")).toBeVisible();
  await page.getByTestId("tree-choice-branch").check();
  await expect(page.getByTestId("tree-choice-base")).toHaveValue("main");
  await page.getByTestId("tree-choice-branch-name").fill("tandem/shout");
  await page.getByTestId("new-session-view").screenshot({ path: screenshotPath("session-branch-new") });
  await agent.send("Add a shout constant");
  await expect(page.getByTestId("session-view")).toBeVisible();
  await expect(page.getByTestId("session-branch")).toContainText("tandem/shout from main");
  const write = agent.toolCard("shout.ts");
  await write.getByTestId("approve").click();
  await expect(agent.panel()).toContainText("Done: shout.ts is on the branch.");

  // The main tree has no shout.ts; the session's tree has it.
  await expect(ide.treeItem("app.ts")).toBeVisible();
  await expect(ide.treeItem("shout.ts")).toHaveCount(0);
  const switcher = page.getByTestId("tree-switcher");
  await expect(switcher.locator("option", { hasText: "tandem/shout" })).toHaveText(/tandem\/shout · /);
  await switcher.selectOption({
    label: (await switcher.locator("option", { hasText: "tandem/shout" }).textContent())!,
  });
  await expect(page).toHaveURL(/[?&]tree=[0-9a-f-]{36}/);
  await expect(ide.treeItem("shout.ts")).toBeVisible();
  await ide.openFile("shout.ts");
  await ide.expectEditorText('export const shout = "HELLO";');
  await page.screenshot({ path: screenshotPath("session-branch-tree") });

  // A link (here: a reload) opens the same tree.
  await page.reload();
  await expect(switcher).toHaveValue(/[0-9a-f-]{36}/);
  await expect(ide.treeItem("shout.ts")).toBeVisible();

  // Merge into main: the main tree gets the file.
  await page.getByTestId("session-merge").click();
  await expect(page.getByTestId("session-merged")).toContainText("into main");
  await switcher.selectOption("main");
  await expect(page).not.toHaveURL(/tree=/);
  await expect(ide.treeItem("shout.ts")).toBeVisible();
  await page.screenshot({ path: screenshotPath("session-branch-merged") });
});
