import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { ReviewPage } from "./pages/review";

// Reviewing a long file hunk by hunk: after Accept or Reject, the next change is what shows,
// also once the diff has been recomputed and its unchanged regions folded again.

test("reject or accept a change in a long file: the next change stays in view", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  const lines = Array.from({ length: 150 }, (_, i) => `export const value${i + 1} = ${i + 1};`);
  // Three changes of 20 lines each, far apart: each taller than the diff's view.
  const block = (from: number) => lines.slice(from, from + 20).join("\n");
  const edits = [5, 65, 125].map((from) => ({
    path: "src/values.ts",
    old_string: block(from),
    new_string: block(from).replaceAll(" = ", ": number = "),
  }));
  await agent.script([
    {
      text: "Reading it first.",
      toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/values.ts" } }],
    },
    {
      match: "export const value1 ",
      text: "Typing the values.",
      toolCalls: [{ id: "call_types", name: "multi_edit", arguments: { edits } }],
    },
    { match: "Applied 3 edits", text: "Three blocks of values are typed." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Review long file");
  await review.writeFile("src/values.ts", `${lines.join("\n")}\n`);
  await agent.ask("Type the values");
  const edit = agent.toolCard(/^Edit src\/values.ts/);
  await expect(edit).toHaveAttribute("data-status", "awaiting_approval");
  await edit.getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("are typed", { timeout: 30_000 });

  await review.openChanges();
  await review.select("src/values.ts");
  await expect(review.hunks()).toHaveCount(3);
  const bar = (label: string) => review.hunks().filter({ hasText: label });

  // The first change shows with its bar; a person scrolls the diff down to the second.
  await expect(bar("Change 1 of 3")).toBeInViewport();
  await page.getByTestId("review-diff").hover();
  await expect(async () => {
    await page.mouse.wheel(0, 120);
    await expect(bar("Change 2 of 3")).toBeInViewport({ timeout: 250 });
  }).toPass({ timeout: 20_000 });

  // Reject the middle change: the last one, now second of two, is what shows.
  await bar("Change 2 of 3").getByTestId("hunk-reject").click();
  await expect(review.hunks()).toHaveCount(2);
  await expect(bar("Change 2 of 2")).toBeInViewport();
  await page.waitForTimeout(500);
  await expect(bar("Change 2 of 2"), "still in view once the new diff has settled").toBeInViewport();
  await page.screenshot({ path: screenshotPath("review-next-hunk-after-reject") });

  // Accept the last change: the one before it shows.
  await bar("Change 2 of 2").getByTestId("hunk-accept").click();
  await expect(review.hunks()).toHaveCount(1);
  await page.waitForTimeout(500);
  await expect(bar("Change 1 of 1")).toBeInViewport();
});
