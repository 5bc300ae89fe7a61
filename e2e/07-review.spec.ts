import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { ReviewPage } from "./pages/review";

// Reviewing the agent's edits and rolling back its turns, against the scripted model server: the
// tools are real, so the agent reads, searches and edits the project's files, and the Changes tab
// and the checkpoints work on what is really on disk.

const MATH = [
  "export function add(a: number, b: number) {",
  "  return a + b;",
  "}",
  "",
  "export function subtract(a: number, b: number) {",
  "  return a - b;",
  "}",
  "",
  "export function multiply(a: number, b: number) {",
  "  return a * b;",
  "}",
  "",
  "export function divide(a: number, b: number) {",
  "  return a / b;",
  "}",
  "",
].join("\n");
const FORMAT = [
  'import { add } from "./math";',
  "",
  "export const total = (a: number, b: number) => `total: ${add(a, b)}`;",
  "",
].join("\n");

const ADD_CHECKED = "export function add(a: number, b: number): number {";
const DIVIDE_CHECKED = '  if (b === 0) throw new RangeError("division by zero");\n  return a / b;';
const FORMAT_FIXED = "export const total = (a: number, b: number) => `Total: ${add(a, b)}`;";

test("review: reject one hunk, accept the rest, restore the turn's checkpoint and undo it", async ({
  page,
  ide,
  pageErrors,
}) => {
  // The restore removes scratch.txt while the editor shows it: its reload hears it is gone.
  pageErrors.allow(/status of 404 .*\/api\/trpc\/fs\.read/);
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  await agent.script([
    {
      text: "I'll read both files and look for the callers of `add`.",
      toolCalls: [
        { id: "call_read_math", name: "read_file", arguments: { path: "src/math.ts" } },
        { id: "call_read_format", name: "read_file", arguments: { path: "src/format.ts" } },
        { id: "call_grep", name: "grep", arguments: { pattern: "add\\(" } },
      ],
    },
    {
      match: "format.ts",
      text: "Three changes: a return type on `add`, a zero check in `divide`, and the label in `total`.",
      toolCalls: [
        {
          id: "call_edit",
          name: "multi_edit",
          arguments: {
            edits: [
              {
                path: "src/math.ts",
                old_string: "export function add(a: number, b: number) {",
                new_string: ADD_CHECKED,
              },
              { path: "src/math.ts", old_string: "  return a / b;", new_string: DIVIDE_CHECKED },
              { path: "src/format.ts", old_string: "`total: ${add(a, b)}`", new_string: "`Total: ${add(a, b)}`" },
            ],
          },
        },
      ],
    },
    {
      match: "Applied 3 edits",
      text: "Done: `add` has a return type, `divide` refuses zero, and the label is capitalised.",
    },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Review demo");
  await review.writeFile("src/math.ts", MATH);
  await review.writeFile("src/format.ts", FORMAT);
  await expect(ide.treeItem("src")).toBeVisible();

  // Ask; the agent reads and searches without asking, then proposes its edits.
  await agent.ask("Make the math helpers safer and fix the total label");
  await expect(agent.toolCard("Read src/math.ts")).toHaveAttribute("data-status", "done");
  await expect(agent.toolCard(/^Search for/)).toHaveAttribute("data-status", "done");
  const edit = agent.toolCard("Edit 2 files (3 changes)");
  await expect(edit).toHaveAttribute("data-status", "awaiting_approval");
  await edit.getByTestId("approve").click();
  await expect(edit).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(agent.assistantMessages().last()).toContainText("label is capitalised");
  await agent.expectStatus("idle");
  await expect(page.getByTestId("checkpoint")).toHaveCount(1);

  // The editor marks the lines the agent changed.
  await ide.treeItem("src").click();
  await ide.openFile("src/math.ts");
  await expect(page.getByTestId("editor")).toHaveAttribute("data-agent-lines", "2");
  await expect(page.getByTestId("editor").locator(".agent-line-modified").first()).toBeVisible();
  await page.screenshot({ path: screenshotPath("review-gutter") });

  // Changes: two files; math.ts has two separate hunks.
  await expect(review.changesButton()).toHaveText("Changes (2)");
  await review.openChanges();
  await expect(review.view().getByTestId("changes-file")).toHaveCount(2);
  await review.select("src/math.ts");
  await expect(review.hunks()).toHaveCount(2);
  await page.screenshot({ path: screenshotPath("review-changes") });

  // Reject the first hunk of math.ts (the return type), accept the rest. While the reject is on its
  // way (held here for a moment), its button says so and the others wait.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/api\/trpc\/review\.rejectHunk/, async (route) => {
    await held;
    await route.continue();
  });
  await review.hunks().first().getByTestId("hunk-reject").click();
  await expect(review.hunks().first().getByTestId("hunk-reject")).toHaveText("Rejecting…");
  await expect(review.hunks().last().getByTestId("hunk-accept")).toBeDisabled();
  release();
  await expect(review.hunks()).toHaveCount(1);
  await review.expectFile("src/math.ts", MATH.replace("  return a / b;", DIVIDE_CHECKED));
  await review.hunks().first().getByTestId("hunk-accept").click();
  await expect(review.view().getByTestId("changes-file")).toHaveCount(1);
  await review.select("src/format.ts");
  await review.hunks().first().getByTestId("hunk-accept").click();
  await expect(review.view().getByTestId("changes-empty")).toBeVisible();
  await expect(review.changesButton()).toHaveText("Changes (0)");
  await page.screenshot({ path: screenshotPath("review-all-reviewed") });

  // Exactly what was kept is on disk.
  const reviewedMath = MATH.replace("  return a / b;", DIVIDE_CHECKED);
  const reviewedFormat = FORMAT.replace("`total: ${add(a, b)}`", "`Total: ${add(a, b)}`");
  await review.expectFile("src/math.ts", reviewedMath);
  await review.expectFile("src/format.ts", reviewedFormat);
  expect(reviewedFormat).toContain(FORMAT_FIXED);
  await ide.tab("src/math.ts").click();
  await expect(page.getByTestId("editor")).toHaveAttribute("data-agent-lines", "0");
  await ide.expectEditorText('throw new RangeError("division by zero")');

  // A command in the terminal changes the workspace too.
  await ide.openTerminal();
  await ide.runInTerminal("echo scratch > scratch.txt && echo made-$((6*7))");
  await expect(ide.terminalText()).toContainText("made-42");
  await review.expectFile("scratch.txt", "scratch\n");

  // Restore to before the turn: the preview lists what will change; the conversation is rewound too.
  await page.getByTestId("restore-turn").click();
  const dialog = page.getByTestId("restore-dialog");
  await expect(dialog.getByTestId("restore-files").locator("li")).toHaveCount(3);
  await expect(dialog.getByTestId("restore-files")).toContainText("scratch.txt");
  await dialog.getByTestId("restore-rewind").check();
  await page.screenshot({ path: screenshotPath("review-restore-preview") });
  await dialog.getByTestId("restore-confirm").click();
  await expect(dialog).toHaveCount(0);

  await review.expectFile("src/math.ts", MATH);
  await review.expectFile("src/format.ts", FORMAT);
  await review.expectFile("scratch.txt", null);
  await ide.expectEditorText("export function add(a: number, b: number) {");
  await expect(page.getByTestId("rewound")).toBeVisible();
  await expect(page.getByTestId("restore-banner")).toContainText(
    "restored 3 files to before a turn and rewound the conversation",
  );
  // The confirmation and its Undo are brought into view, not left below it.
  await expect(page.getByTestId("undo-restore")).toBeInViewport();
  // The review went back with the files: nothing of the agent's is left to review.
  await expect(review.changesButton()).toHaveText("Changes (0)");
  await page.screenshot({ path: screenshotPath("review-restored") });

  // Undo the restore: the reviewed files and the scratch file are back, the conversation too.
  await page.getByTestId("undo-restore").click();
  await expect(page.getByTestId("restore-banner")).toHaveAttribute("data-undone", "true");
  await review.expectFile("src/math.ts", reviewedMath);
  await review.expectFile("src/format.ts", reviewedFormat);
  await review.expectFile("scratch.txt", "scratch\n");
  await expect(page.getByTestId("rewound")).toHaveCount(0);
  // What was accepted stays accepted: the agent's two files are not up for review again. Changes
  // compares the review base with the workspace, so the scratch file the terminal wrote may be
  // listed once the view has caught up with the undo; either way no agent file is.
  await expect(review.changesButton()).toHaveText(/^Changes \([01]\)$/);
  await expect(agent.assistantMessages().last()).toContainText("label is capitalised");
  await page.screenshot({ path: screenshotPath("review-restore-undone") });
});

test("the agent edits a file someone has open with unsaved changes: merged in live, nothing overwritten", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  await agent.script([
    {
      text: "Reading it first.",
      toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/format.ts" } }],
    },
    {
      match: "export const total",
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: { path: "src/format.ts", old_string: "`Total: ", new_string: "`Sum: " },
        },
      ],
    },
    { match: "Edited", text: "The label now says Sum." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent meets unsaved");
  await review.writeFile("src/format.ts", FORMAT.replace("`total: ", "`Total: "));
  await ide.treeItem("src").click();
  await ide.openFile("src/format.ts");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("// mine, not saved");
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");

  await agent.ask("Call it Sum instead of Total");
  const edit = agent.toolCard("Edit src/format.ts");
  await expect(edit).toHaveAttribute("data-status", "awaiting_approval");
  await edit.getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("now says Sum", { timeout: 30_000 });

  // The agent's edit arrives in the open live document as an edit: my unsaved typing stays, no banner.
  await expect.poll(() => review.readFile("src/format.ts")).toContain("`Sum: ");
  await ide.expectEditorText("`Sum: ");
  await ide.expectEditorText("// mine, not saved");
  await expect(page.getByTestId("conflict-banner")).toHaveCount(0);
  await expect(page.getByTestId("save-state")).toHaveText("Unsaved changes");
  await expect(page.getByTestId("editor")).toHaveAttribute("data-agent-lines", "1");
  await page.screenshot({ path: screenshotPath("review-live-merge") });
  await expect(review.changesButton()).toHaveText("Changes (1)");
});
