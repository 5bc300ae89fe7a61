import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { ReviewPage } from "./pages/review";

// The agent panel against the scripted model server (e2e/fixtures/model-server), which answers
// as an OpenAI-compatible provider with the replies each test scripts. The tools are real: the
// agent reads and edits the project's files and asks before it edits or runs anything.

test("a change asked in a new session: markdown, a read, an approved edit, a rejected command", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "greeting",
      text: "I'll look at **app.ts** first, then change `greeting`.",
      toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "app.ts" } }],
    },
    {
      match: "export const greeting",
      text: 'Found it. Here is the change:\n\n```ts\nexport const greeting = "hello, world";\n```\n',
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: { path: "app.ts", old_string: '"hello"', new_string: '"hello, world"' },
        },
      ],
    },
    {
      match: "Edited",
      text: "Now the tests.",
      toolCalls: [{ id: "call_test", name: "shell", arguments: { command: "npm test" } }],
    },
    { match: "skip the tests", text: "Understood: I did not run the tests. `app.ts` now greets the whole world." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent demo");
  await ide.newFile("app.ts");
  await ide.typeInEditor('export const greeting = "hello";');
  await ide.save();

  await agent.ask("Make the greeting say hello, world");
  await expect(page.getByTestId("session-title")).toContainText("Make the greeting say hello, world");
  await expect(agent.userMessages().first().getByTestId("message-author")).toHaveText("You");

  // The streamed answer is markdown; the read ran without asking.
  await expect(agent.assistantMessages().first().locator("strong")).toHaveText("app.ts");
  await expect(agent.toolCard("Read app.ts")).toHaveAttribute("data-status", "done");

  // The edit waits, showing its diff in a Monaco diff editor.
  const editCard = agent.toolCard("Edit app.ts");
  await expect(editCard).toHaveAttribute("data-status", "awaiting_approval");
  await expect(editCard.getByTestId("approval-diff").locator(".monaco-diff-editor")).toBeVisible();
  await expect(editCard.getByTestId("approval-diff")).toContainText("hello, world");
  await expect(page.getByTestId("waiting-badge")).toHaveText("1");
  await expect(page).toHaveTitle(/^\(1\) Waiting for you · Agent demo/);
  const codeBlock = agent.assistantMessages().nth(1).getByTestId("code-block");
  await expect(codeBlock).toContainText('export const greeting = "hello, world";');
  // Highlighted once the streamed block settles.
  await expect(codeBlock.locator(".tok-keyword").first()).toHaveText("export");
  await page.screenshot({ path: screenshotPath("agent-edit-approval") });

  await editCard.getByTestId("approve").click();
  // After an edit of a TypeScript file the tool waits for the language server's verdict (started cold here).
  await expect(editCard).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(editCard.getByTestId("diff-file")).toContainText('+export const greeting = "hello, world";');

  // The file changed on disk: the open tab follows it, and "Open in editor" shows it.
  await editCard.getByTestId("open-in-editor").click();
  await ide.expectEditorText('export const greeting = "hello, world";');

  // The command waits too; it is rejected with feedback, which the model reads.
  const shellCard = agent.toolCard("Run npm test");
  await expect(shellCard).toHaveAttribute("data-status", "awaiting_approval");
  await expect(shellCard.getByTestId("approval-command")).toHaveText("$ npm test");
  await expect(shellCard.getByTestId("approval-folder")).toContainText("Agent demo");
  await page.screenshot({ path: screenshotPath("agent-shell-approval") });
  await shellCard.getByTestId("reject").click();
  await shellCard.getByTestId("reject-feedback").fill("skip the tests for now");
  await shellCard.getByTestId("reject-feedback").press("Enter");
  await expect(shellCard).toHaveAttribute("data-status", "rejected");
  await expect(shellCard.getByTestId("tool-feedback")).toContainText("skip the tests for now");
  await expect(agent.assistantMessages().last()).toContainText("now greets the whole world");
  await agent.expectStatus("idle");
  await expect(page.getByTestId("waiting-badge")).toHaveCount(0);
  await expect(page).toHaveTitle(/^(\(\d+\) )?Agent demo · Tandem/);
  await expect(page.getByTestId("usage-counter")).toContainText("↑");
  await page.screenshot({ path: screenshotPath("agent-session-done") });

  // The session is listed under the title its first message gave it.
  await page.getByTestId("session-back").click();
  await expect(page.getByTestId("session-row").first()).toContainText("Make the greeting say hello, world");
  await page.screenshot({ path: screenshotPath("agent-session-list") });
});

test("approvals answer from the keyboard; Alt+A jumps to what waits", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      toolCalls: [
        { id: "call_ls", name: "shell", arguments: { command: "ls -la", description: "List the project folder" } },
      ],
    },
    { match: "declined", text: "Fine, I will not list it." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent keys");
  await new ReviewPage(page).writeFile("app.ts", 'export const greeting = "hello";\n');
  await agent.ask("What is in this folder?");
  const card = agent.toolCard("List the project folder");
  await expect(card).toHaveAttribute("data-status", "awaiting_approval");
  await ide.treeItem("app.ts").click();
  await page.keyboard.press("Alt+a");
  await expect(agent.approvalCard()).toBeFocused();
  await page.keyboard.press("n");
  await expect(card.getByTestId("reject-feedback")).toBeFocused();
  await page.keyboard.type("declined: not needed");
  await page.keyboard.press("Enter");
  await expect(card).toHaveAttribute("data-status", "rejected");
  await expect(agent.assistantMessages().last()).toContainText("Fine, I will not list it.");
});

test("the stop button cancels a hanging stream", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([{ text: "Thinking out loud for a while and then some more ", delayMs: 20, hang: true }]);
  await ide.signIn(admin);
  await ide.createProject("Agent stop");
  await agent.ask("Think about it");
  await expect(agent.assistantMessages().last()).toContainText("Thinking out loud");
  await agent.expectStatus("running");
  await page.screenshot({ path: screenshotPath("agent-streaming") });
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("notice").last()).toHaveText(/Stopped\./);
  await agent.expectStatus("idle");
  await expect(page.getByTestId("stop")).toHaveCount(0);
});

test("a question from ask_user is answered by clicking an option", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      toolCalls: [
        {
          id: "call_ask",
          name: "ask_user",
          arguments: { question: "Which database?", options: ["Postgres", "SQLite"] },
        },
      ],
    },
    { match: "answered: Postgres", text: "Postgres it is." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent question");
  await agent.ask("Set up the database");
  const question = page.getByTestId("question-card");
  await expect(question).toContainText("Which database?");
  await expect(page.getByTestId("waiting-badge")).toHaveText("1");
  await page.screenshot({ path: screenshotPath("agent-ask-user") });
  await question.getByTestId("question-option").filter({ hasText: "Postgres" }).click();
  await expect(question.getByTestId("question-answer")).toContainText("answered: Postgres");
  await expect(agent.assistantMessages().last().locator(".markdown")).toHaveText("Postgres it is.");
});

test("model output cannot run script or reach another host", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  const payload = [
    "Attempts, all of which must stay inert:",
    "",
    "<script>window.__xss = 'script'</script>",
    '<img src="x" onerror="window.__xss = \'onerror\'">',
    "<a href=\"javascript:window.__xss = 'html-link'\">html link</a>",
    "[markdown link](javascript:window.__xss='md-link')",
    "![tracking pixel](http://tracker.example.com/pixel.png)",
    "![other local port](http://127.0.0.1:9/evil.png)",
    '<iframe src="http://evil.example.com/"></iframe>',
    "<svg onload=\"window.__xss='svg'\"></svg>",
  ].join("\n\n");
  await agent.script([{ text: payload }]);
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const offsite: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== origin) offsite.push(request.url());
  });
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== "127.0.0.1") return route.abort();
    return route.continue();
  });
  await ide.signIn(admin);
  await ide.createProject("Agent output");
  await agent.ask("Show me some HTML");
  const message = agent.assistantMessages().last();
  await expect(message).toContainText("Attempts, all of which must stay inert");
  await agent.expectStatus("idle");
  await expect(message.locator("script, iframe, svg, img, [onerror], [onload]")).toHaveCount(0);
  await expect(message).toContainText("<script>window.__xss = 'script'</script>"); // shown as text
  await expect(message.getByTestId("blocked-image")).toHaveCount(2);
  await message.getByText("markdown link").click();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
  expect(offsite).toEqual([]);
  await page.screenshot({ path: screenshotPath("agent-xss") });
});

test("with no model configured the panel says how to add one", async ({ page, ide }) => {
  // The server under test has a provider; model.list is answered as a server without one would.
  await page.route("**/api/trpc/**", async (route) => {
    const url = new URL(route.request().url());
    const procedures = url.pathname.slice("/api/trpc/".length).split(",");
    const at = procedures.indexOf("model.list");
    if (at === -1) return route.continue();
    const response = await route.fetch();
    const body = (await response.json()) as Array<{
      result?: {
        data?: {
          json?: {
            defaultModel: string | null;
            providers: Array<{ provider: string; configured: boolean; models: string[] }>;
            settings: unknown[];
          };
        };
      };
    }>;
    const list = body[at]?.result?.data?.json;
    if (list) {
      list.defaultModel = null;
      list.settings = [];
      for (const p of list.providers) Object.assign(p, { configured: false, models: [] });
    }
    await route.fulfill({ response, json: body });
  });
  await ide.signIn(admin);
  await ide.createProject("No model");
  const help = page.getByTestId("no-model-help");
  await expect(help).toBeVisible();
  await expect(help).toContainText("ANTHROPIC_API_KEY");
  await expect(help).toContainText("TANDEM_MODEL=ollama:qwen3:8b");
  await expect(page.getByTestId("composer-input")).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("agent-no-model") });
});

test("session notes and the agent's memory are edited by people", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Agent notes");
  // A session of its own to take notes in.
  const agent = new AgentPanel(page);
  await agent.script([{ match: "greeting change", text: "Noted." }]);
  await agent.ask("Plan the greeting change");
  await expect(agent.assistantMessages().last()).toContainText("Noted.");
  await page.getByTestId("session-back").click();
  await page.getByTestId("session-row").first().getByTestId("session-open").click();
  await expect(page.getByTestId("session-view")).toBeVisible();

  // A long title is cut in the Notes header; "New note" stays in view, with no sideways scrolling.
  const longTitle = `Plan the greeting change ${"and everything around it ".repeat(6)}`.trim();
  await page.getByTestId("session-view").getByTestId("session-rename").click();
  await page.getByTestId("session-rename-input").fill(longTitle);
  await page.getByTestId("session-rename-input").press("Enter");
  await page.getByTestId("agent-tab-notes").click();
  await expect(page.getByTestId("notes-title")).toHaveAttribute("title", `Notes · ${longTitle}`);
  await expect(page.getByTestId("note-new")).toBeInViewport({ ratio: 1 });
  const notes = page.getByTestId("notes-panel");
  expect(await notes.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
  await page.screenshot({ path: screenshotPath("agent-notes-long-title") });
  await page.getByTestId("note-new").click();
  await page.getByTestId("note-title").fill("Plan");
  await page.getByTestId("note-content").fill("1. Read the code\n2. **Change** the greeting");
  await page.getByTestId("note-save").click();
  const note = page.getByTestId("note").filter({ hasText: "Plan" });
  await expect(note.locator("strong")).toHaveText("Change");

  await page.getByTestId("agent-tab-memory").click();
  await page.getByTestId("memory-new").click();
  await page.getByTestId("memory-key").fill("test-command");
  await page.getByTestId("memory-value").fill("Run the tests with npm test");
  await page.getByTestId("memory-save").click();
  const row = page.getByTestId("memory-row").filter({ hasText: "test-command" });
  await expect(row).toContainText("npm test");

  await page.getByTestId("memory-search").fill("tests");
  await expect(row).toBeVisible();
  await page.getByTestId("memory-search").fill("kubernetes");
  await expect(page.getByTestId("memory-panel")).toContainText("Nothing matches.");
  await page.getByTestId("memory-search").fill("");

  await row.getByTestId("memory-edit").click();
  await page.getByTestId("memory-value").fill("Run the tests with npm test -- --run");
  await page.getByTestId("memory-save").click();
  await expect(row).toContainText("-- --run");
  await page.screenshot({ path: screenshotPath("agent-memory") });

  const download = page.waitForEvent("download");
  await page.getByTestId("memory-export").click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("project-memory.md");
  const { readFile } = await import("node:fs/promises");
  expect(await readFile((await file.path())!, "utf8")).toContain("## test-command");

  await row.getByTestId("memory-delete").click();
  await page.getByTestId("confirm-button").click();
  await expect(row).toHaveCount(0);
});

test("sending while scrolled up shows the new message; new content below offers a jump to it", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n");
  await agent.script([
    { match: "long answer", text: long },
    { match: "slow one", text: `${"Streaming slowly, word by word, ".repeat(16)}done at last.`, delayMs: 150 },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent scroll");
  await agent.ask("Give me a long answer");
  await expect(agent.assistantMessages().last()).toContainText("Line 60");
  const transcript = page.getByTestId("transcript");
  await transcript.focus();
  await page.keyboard.press("Home");
  await expect(agent.userMessages().first()).toBeInViewport();

  await agent.send("Now a slow one");
  await expect(agent.userMessages().last()).toContainText("Now a slow one");
  await expect(agent.userMessages().last()).toBeInViewport();

  // Scrolled up while the answer streams in: the view stays, and offers a way down.
  await transcript.focus();
  await page.keyboard.press("Home");
  await expect(page.getByTestId("jump-to-latest")).toBeVisible();
  await page.screenshot({ path: screenshotPath("agent-jump-to-latest") });
  await page.getByTestId("jump-to-latest").click();
  await expect(agent.assistantMessages().last()).toContainText("done at last.", { timeout: 30_000 });
  await expect(agent.assistantMessages().last()).toBeInViewport();
  await expect(page.getByTestId("jump-to-latest")).toHaveCount(0);
});

test("an approval's diff fits its change, wraps long lines and opens in a full diff editor", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  const longLine = (word: string) =>
    `export const banner = "${word} ${"the quick brown fox jumps over the lazy dog ".repeat(2)}tail-${word}";`;
  const lines = Array.from({ length: 80 }, (_, i) => `export const line${i} = ${i};`);
  lines[40] = longLine("before");
  await agent.script([
    // The edit tool wants the file read first.
    {
      match: "banner",
      text: "Reading it first.",
      toolCalls: [{ id: "call_read_wide", name: "read_file", arguments: { path: "wide.ts" } }],
    },
    {
      match: "line0",
      text: "Changing the banner.",
      toolCalls: [
        {
          id: "call_wide",
          name: "edit",
          arguments: { path: "wide.ts", old_string: longLine("before"), new_string: longLine("after") },
        },
      ],
    },
    { match: "Edited", text: "The banner is changed." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent diff");
  await ide.newFile("wide.ts");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.insertText(lines.join("\n"));
  await ide.save();

  await agent.ask("Change the banner in wide.ts");
  const card = agent.toolCard("Edit wide.ts");
  await expect(card).toHaveAttribute("data-status", "awaiting_approval");
  const diff = card.getByTestId("approval-diff");
  await expect(diff.locator(".monaco-diff-editor")).toBeVisible();
  await expect(diff).toContainText("tail-after");
  // Unchanged lines are folded away and the box is as tall as what is left (about 260 px here),
  // not the 320 px an 80-line file used to get.
  await expect.poll(async () => (await diff.boundingBox())!.height).toBeLessThan(310);
  // The long line wraps: its start and its end are on different screen lines.
  const start = diff.locator(".view-line").filter({ hasText: '"after' });
  await expect(start).toHaveCount(1);
  await expect(start).not.toContainText("tail-after");
  await page.screenshot({ path: screenshotPath("agent-approval-diff") });

  await card.getByTestId("approval-diff-open").click();
  const dialog = page.getByTestId("approval-diff-dialog");
  await expect(dialog.locator(".editor.original")).toBeVisible();
  await expect(dialog.locator(".editor.modified")).toContainText("tail-after");
  await expect(dialog.locator(".editor.original")).toContainText("tail-before");
  await page.screenshot({ path: screenshotPath("agent-approval-diff-full") });
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  await card.getByTestId("approve").click();
  await expect(card).toHaveAttribute("data-status", "done");
  await expect(agent.assistantMessages().last()).toContainText("The banner is changed.");
});

test("the pinned task list belongs to its turn: a later message leaves it in the log, not over the conversation", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  const todos = [
    { id: "1", content: "Read the greeting", status: "completed" },
    { id: "2", content: "Change the greeting", status: "in_progress" },
  ];
  await agent.script([
    {
      match: "plan it",
      text: "Here is the plan.",
      toolCalls: [{ id: "call_todos", name: "todo_write", arguments: { todos } }],
    },
    { match: "Task list updated", text: "Planned." },
    { match: "something else", text: "A different question, answered." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Agent tasks");
  await agent.ask("Please plan it");
  await expect(agent.assistantMessages().last()).toContainText("Planned.");
  await expect(page.getByTestId("todo-list")).toContainText("Change the greeting");

  await agent.send("Now something else");
  await expect(agent.assistantMessages().last()).toContainText("A different question, answered.");
  await expect(page.getByTestId("todo-list")).toHaveCount(0);
});
