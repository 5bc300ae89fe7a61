import type { Page } from "@playwright/test";
import type { ScriptedReply } from "./fixtures/model-server/server";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { ReviewPage } from "./pages/review";

// A transcript stays readable through a long working session: cards of every height (shell
// output, code, long lines) never overlap, after a reload too and while scrolling through, and the
// view follows new output while it is at the bottom, after an approval too.

const STEPS = 12;

/** One step of the session: a few words, a code block now and then, and a command with many lines of output. */
function step(n: number): ScriptedReply {
  const code =
    n % 3 === 0 ? `\n\n\`\`\`ts\nexport const step${n} = ${n};\nexport const next = step${n} + 1;\n\`\`\`\n` : "";
  return {
    text: `Step ${n}: listing what module ${n} holds.${code}`,
    delayMs: 8,
    reasoning: n % 2 ? `Module ${n} first; its listing decides the next step.` : undefined,
    toolCalls: [
      {
        id: `call_step_${n}`,
        name: "shell",
        arguments: { command: `seq -f "module ${n}, line %g: ok" 1 ${8 + (n % 4) * 6}` },
      },
    ],
  };
}

/** The transcript items in the DOM whose boxes intersect (more than a pixel, rounding aside). */
function overlaps(page: Page) {
  return page.getByTestId("transcript").evaluate((list) => {
    const boxes = [...list.querySelectorAll(":scope > div > .vlist-item")].map((el) => ({
      index: el.getAttribute("data-index"),
      box: el.getBoundingClientRect(),
    }));
    const found: string[] = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!.box;
        const b = boxes[j]!.box;
        const shared = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (shared > 1)
          found.push(`items ${boxes[i]!.index} and ${boxes[j]!.index} overlap by ${Math.round(shared)} px`);
      }
    }
    return found;
  });
}

/**
 * Checks every frame, while the session runs, whether two rendered items overlap, and keeps the
 * longest run of frames that had one: an item may overlap for a frame while it is measured, never longer.
 */
async function watchOverlaps(page: Page) {
  await page.evaluate(() => {
    const watch = { longest: 0, run: 0 };
    (window as unknown as { overlapWatch: typeof watch }).overlapWatch = watch;
    const tick = () => {
      const list = document.querySelector("[data-testid=transcript]");
      const boxes = list
        ? [...list.querySelectorAll(":scope > div > .vlist-item")].map((el) => el.getBoundingClientRect())
        : [];
      const overlapping = boxes.some((a, i) =>
        boxes.slice(i + 1).some((b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1),
      );
      watch.run = overlapping ? watch.run + 1 : 0;
      watch.longest = Math.max(watch.longest, watch.run);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

function longestOverlap(page: Page) {
  return page.evaluate(() => (window as unknown as { overlapWatch: { longest: number } }).overlapWatch.longest);
}

/** Scrolls the transcript from top to bottom a screen at a time, checking for overlaps at each stop. */
async function scrollThrough(page: Page) {
  const list = page.getByTestId("transcript");
  await list.evaluate((el) => (el.scrollTop = 0));
  for (let stop = 0; stop < 60; stop++) {
    await page.waitForTimeout(120);
    expect(await overlaps(page), `overlaps at scroll stop ${stop}`).toEqual([]);
    const done = await list.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop += el.clientHeight * 0.8;
      return el.scrollTop === before;
    });
    if (done) return;
  }
}

/** Whether the transcript is scrolled to its end. */
function atBottom(page: Page) {
  return page.getByTestId("transcript").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2);
}

test("a long session with many shell results: cards never overlap, after a reload and while scrolling", async ({
  page,
  ide,
}) => {
  test.setTimeout(180_000);
  const agent = new AgentPanel(page);
  await agent.script([
    ...Array.from({ length: STEPS }, (_, i) => step(i + 1)),
    { text: "All twelve modules are listed; every line says ok." },
  ]);
  await page.setViewportSize({ width: 900, height: 700 });
  await ide.signIn(admin);
  await ide.createProject("Long transcript");
  await watchOverlaps(page);
  await agent.ask("List every module");
  await agent
    .toolCard(/module 1/)
    .getByTestId("approve-always")
    .click();
  await expect(agent.assistantMessages().last()).toContainText("every line says ok", { timeout: 90_000 });
  await agent.expectStatus("idle");

  expect(await longestOverlap(page), "frames in a row with overlapping items while the session ran").toBeLessThan(4);
  expect(await overlaps(page)).toEqual([]);
  await expect.poll(() => atBottom(page)).toBe(true);
  await expect(agent.assistantMessages().last()).toBeInViewport();
  await page.screenshot({ path: screenshotPath("transcript-long-session") });
  await scrollThrough(page);

  await page.reload();
  await ide.waitForLive();
  await expect(agent.assistantMessages().last()).toContainText("every line says ok", { timeout: 30_000 });
  await expect.poll(() => atBottom(page)).toBe(true);
  await expect(agent.assistantMessages().last()).toBeInViewport();
  expect(await overlaps(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath("transcript-long-session-reloaded") });
  await scrollThrough(page);

  // Wider, every card changes height: none overlaps.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId("transcript").evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
  await page.waitForTimeout(300);
  expect(await overlaps(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath("transcript-long-session-1280") });
  await scrollThrough(page);
});

test("approving at the bottom follows the output and the summary; scrolled up, a bar below the list announces them", async ({
  page,
  ide,
}) => {
  test.setTimeout(180_000);
  const agent = new AgentPanel(page);
  const build = (n: number, pause: number) =>
    `for i in $(seq 1 ${n}); do echo "build step $i of ${n}: compiled a long file name that wraps around the card $i"; sleep ${pause}; done`;
  const checks = [12, 15, 40, 18, 21];
  await agent.script([
    ...checks.map((n, i) => ({
      text: `Check ${i + 1}.`,
      toolCalls: [{ id: `call_check_${i}`, name: "shell", arguments: { command: build(n, n === 40 ? 0.15 : 0.02) } }],
    })),
    {
      text: "Everything compiled.\n\n```sh\nnpm run build\n```\n\nThe build output is above; **no errors**, and this summary is at the end, readable without scrolling.",
    },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Approve at the bottom");
  await watchOverlaps(page);
  await agent.ask("Build it step by step");
  for (const n of checks) {
    const card = agent.toolCard(new RegExp(`seq 1 ${n}\\)`));
    await expect(card).toHaveAttribute("data-status", "awaiting_approval", { timeout: 30_000 });
    // Up to 30 s: a loaded fresh-clone run on 2 cores timed out here at the default 10 s.
    await expect
      .poll(() => atBottom(page), { message: "the view is at the bottom before approving", timeout: 30_000 })
      .toBe(true);
    await card.getByTestId("approve").click();
    if (n === 40) {
      // Scrolled up while the command prints: its output is announced below the list, not over it.
      await expect(card).toHaveAttribute("data-status", "running");
      await page.getByTestId("transcript").evaluate((el) => (el.scrollTop = 0));
      const jump = page.getByTestId("jump-to-latest");
      await expect(jump).toBeVisible();
      const [bar, list] = await Promise.all([jump.boundingBox(), page.getByTestId("transcript").boundingBox()]);
      expect(bar!.y, "the bar is below the transcript, not over it").toBeGreaterThanOrEqual(list!.y + list!.height - 1);
      await page.screenshot({ path: screenshotPath("transcript-jump-to-latest") });
      await jump.click();
      await expect(jump).toHaveCount(0);
      await expect.poll(() => atBottom(page), "Jump to latest reaches the end and follows again").toBe(true);
    }
    await expect(card).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  }
  await expect(agent.assistantMessages().last()).toContainText("readable without scrolling", { timeout: 30_000 });
  await agent.expectStatus("idle");
  await expect.poll(() => atBottom(page), "the view followed the output to the end").toBe(true);
  await expect(agent.assistantMessages().last()).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId("jump-to-latest")).toHaveCount(0);
  expect(await longestOverlap(page)).toBeLessThan(4);
  expect(await overlaps(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath("transcript-approved-at-bottom") });
});

test("cards read as sent: a search's pattern unescaped, long diff lines scroll sideways, Remember this beside the text", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  const review = new ReviewPage(page);
  const long = `export const message = "${"a line far longer than the card is wide, ".repeat(4)}";`;
  await agent.script([
    {
      text: "Looking for the callers first.",
      toolCalls: [
        { id: "call_grep", name: "grep", arguments: { pattern: "add\\(", path: "src" } },
        { id: "call_read", name: "read_file", arguments: { path: "src/message.md" } },
      ],
    },
    {
      match: "message",
      text: "Now the message.",
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: {
            path: "src/message.md",
            old_string: long,
            new_string: long.replace("far longer", "much, much longer"),
          },
        },
      ],
    },
    { match: "Edited", text: "The message is longer now." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Transcript cards");
  await review.writeFile(
    "src/message.md",
    `${long}\nexport const add = (a: number, b: number) => a + b;\nadd(1, 2);\n`,
  );
  const first =
    "Please make the message in src/message.md longer, and check who calls add( before you touch anything else in the project";
  await agent.ask(first);

  await expect(agent.toolCard(/^Search for/).getByTestId("tool-title")).toHaveText("Search for “add\\(” in src");
  const edit = agent.toolCard("Edit src/message.md");
  await expect(edit).toHaveAttribute("data-status", "awaiting_approval");
  await edit.getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("longer now", { timeout: 30_000 });

  // The diff's long lines scroll sideways, and the added line's colour spans the scrolled width.
  const lines = edit.getByTestId("diff-file").locator(".diff-lines");
  const sizes = await lines.evaluate((el) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
    added: (el.querySelector(".diff-add") as HTMLElement).offsetWidth,
    overflow: getComputedStyle(el).overflowX,
  }));
  expect(sizes.overflow).toBe("auto");
  expect(sizes.scroll).toBeGreaterThan(sizes.client);
  expect(sizes.added).toBe(sizes.scroll);

  // Remember this, shown on hover, sits beside the message's first line, not over it.
  const message = agent.userMessages().first();
  await message.hover();
  const remember = message.getByTestId("remember-this");
  await expect(remember).toBeVisible();
  const covered = await message.evaluate((el) => {
    const button = el.querySelector("[data-testid=remember-this]")!.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el.querySelector(".msg-text")!);
    return [...range.getClientRects()].some(
      (line) =>
        line.left < button.right && line.right > button.left && line.top < button.bottom && line.bottom > button.top,
    );
  });
  expect(covered, "Remember this covers the message's text").toBe(false);
  await page.screenshot({ path: screenshotPath("transcript-cards") });
  await page.setViewportSize({ width: 900, height: 700 });
  await message.hover();
  await page.screenshot({ path: screenshotPath("transcript-cards-900") });
});
