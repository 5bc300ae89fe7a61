import { readFileSync } from "node:fs";
import { admin, authStateFile, expect, newContext, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { BoardPage } from "./pages/board";
import { IdePage } from "./pages/ide";
import { ReviewPage } from "./pages/review";

// The sessions board, live in a second browser, and the review of a session with inline comments
// the agent works through (the scripted model server plays the agent; the edit tool is real and
// asks for approval).

test("a second browser's board follows a session as it starts, waits for approval and finishes; review comments reach the agent and get addressed", async ({
  page,
  ide,
  browser,
}) => {
  test.setTimeout(150_000);
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  await agent.script([
    { match: "Shout the second line", toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "lines.txt" } }] },
    {
      match: "three",
      toolCalls: [{ id: "e1", name: "edit", arguments: { path: "lines.txt", old_string: "two", new_string: "TWO" } }],
    },
    { match: "Edited", text: "The second line shouts now." },
    {
      match: "Review comments on your changes",
      toolCalls: [{ id: "e2", name: "edit", arguments: { path: "lines.txt", old_string: "TWO", new_string: "Two!" } }],
    },
    { match: "Edited", text: "Done: it is Two! now." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Board demo");
  await review.writeFile("lines.txt", "one\ntwo\nthree\n");
  const projectUrl = page.url();

  // A second browser, the same person elsewhere, watches the board.
  const other = new IdePage(await (await newContext(browser)).newPage());
  await other.page.context().addCookies(JSON.parse(readFileSync(authStateFile(admin), "utf8")).cookies);
  await other.page.goto(projectUrl);
  // Two browsers on a machine this busy: the second's live connection may take a while.
  await expect(other.page.getByTestId("connection-state")).toHaveAttribute("data-state", "live", { timeout: 30_000 });
  const board = new BoardPage(other.page);
  await board.open();

  await agent.ask("Shout the second line");
  await expect(board.row("Shout the second line")).toBeVisible();
  await board.expectState("Shout the second line", "approval");
  await expect(board.row("Shout the second line")).toContainText("Ada Admin");
  await expect(other.page).toHaveTitle(/^\(1\) Waiting for you · Board demo/);
  await other.page.screenshot({ path: screenshotPath("board-waiting") });

  await agent.toolCard("Edit lines.txt").getByTestId("approve").click();
  await board.expectState("Shout the second line", "done");
  await expect(board.row("Shout the second line").getByTestId("board-row-changes")).toHaveText("1 file +1 −1");
  await expect(other.page).toHaveTitle(/^(\(\d+\) )?Board demo · Tandem/);

  // The board by keyboard: the row is selected, R opens its review, Enter its conversation.
  await board.open();
  await other.page.getByTestId("board-rows").focus();
  await other.page.keyboard.press("Home");
  await other.page.keyboard.press("r");
  await expect(other.page.getByTestId("changes-view")).toBeVisible();
  await other.page.getByTestId("board-rows").focus();
  await other.page.keyboard.press("Enter");
  await expect(other.page.getByTestId("session-title")).toContainText("Shout the second line");

  // A comment on the change, seen live in the other browser's review too.
  await review.openChanges();
  await new BoardPage(page).commentOnFirstChange("Not all capitals: make it Two!");
  await expect(board.comments()).toHaveCount(1);
  await expect(board.comments().first()).toHaveAttribute("data-state", "open");
  await expect(board.comments().first()).toContainText("Not all capitals");
  await page.screenshot({ path: screenshotPath("review-comments") });

  // Send review: one message to the agent, which edits the line; the comment is then addressed.
  await page.getByTestId("send-review").click();
  await expect(agent.userMessages().last()).toContainText("Review comments on your changes (1)");
  await expect(agent.userMessages().last()).toContainText("lines.txt");
  await expect(agent.userMessages().last()).toContainText("line 2");
  await agent.toolCard("Edit lines.txt").last().getByTestId("approve").click();
  await review.expectFile("lines.txt", "one\nTwo!\nthree\n");
  await expect(page.getByTestId("review-comment").first()).toHaveAttribute("data-state", "addressed");
  await expect(board.comments().first()).toHaveAttribute("data-state", "addressed");
  await page.screenshot({ path: screenshotPath("review-comment-addressed") });
  await board.open();
  await other.page.screenshot({ path: screenshotPath("board-done") });
});
