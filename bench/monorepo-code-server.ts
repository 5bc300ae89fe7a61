// code-server (VS Code in the browser) on bench:monorepo's workspace, driven as a person drives
// it and timed as Tandem is, in the same run: the reference of issue 44's table.
import type { Browser, Page } from "@playwright/test";
import type { Target } from "./monorepo-workspace";
import { shows } from "./page-timing";

const EXPLORER_ROW = ".explorer-folders-view .monaco-list-row";
const EDITOR_LINES = ".editor-instance .monaco-editor .view-lines";
/** Whether a search runs: the Search view's icon in the activity bar shows its progress badge. */
const SEARCHING = `[...document.querySelectorAll(".activitybar .action-item")].some((item) => /^Search/.test(item.querySelector(".action-label")?.getAttribute("aria-label") ?? "") && [...item.querySelectorAll(".progress-badge")].some((badge) => badge.checkVisibility()))`;
/** The Search view's message, as an expression the page evaluates (a string: tsx would wrap a function). */
const SEARCH_MESSAGE = `(document.querySelector(".search-view .result-messages, .search-view .messages")?.textContent ?? "")`;

/** Settings that keep code-server from doing what a person would have dismissed (none change search or the explorer). */
export const CODE_SERVER_SETTINGS = {
  "workbench.tips.enabled": false,
  "extensions.ignoreRecommendations": true,
  "git.openRepositoryInParentFolders": "never",
};

/** `quickOpen`: Ctrl+P to the file's text shown, for each target (the first on the just-loaded workbench). */
export type CodeServerRound = { explorer: number; quickOpen: number[]; findAll: number; findShown: string };

/** Presses `keys` until `selector` shows: the workbench takes keys only once its keybindings are loaded. */
async function pressUntil(page: Page, keys: string, selector: string): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (Date.now() - start > 60_000) throw new Error(`${keys} never showed ${selector} in code-server`);
    await page.keyboard.press(keys).catch(() => {});
    if (
      await shows(page, selector, "", 150).then(
        () => true,
        () => false,
      )
    )
      return;
  }
}

async function openByName(page: Page, target: Target): Promise<void> {
  await pressUntil(page, "Control+P", ".quick-input-widget .quick-input-box input");
  await page.waitForFunction(() => !!document.activeElement?.closest(".quick-input-widget"), undefined, {
    polling: "raf",
  });
  await page.keyboard.type(target.query);
  await shows(page, ".quick-input-list .monaco-list-row.focused", target.query);
  await page.keyboard.press("Enter");
  await shows(page, EDITOR_LINES, target.firstLine);
}

/**
 * One round in a new context: the workbench until the explorer lists the workspace, `targets`
 * opened by Quick Open one after the other (which starts its TypeScript server), as Tandem's
 * rounds open them before they search, then find
 * in files for `pattern` from Enter until the view says how many results it shows.
 */
export async function codeServerRound(
  browser: Browser,
  url: string,
  targets: readonly Target[],
  pattern: string,
): Promise<CodeServerRound> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    let start = Date.now();
    await page.goto(url, { waitUntil: "commit" });
    await shows(page, EXPLORER_ROW, "packages", 120_000);
    const explorer = Date.now() - start;

    const quickOpen: number[] = [];
    for (const target of targets) {
      start = Date.now();
      await openByName(page, target);
      quickOpen.push(Date.now() - start);
    }

    await pressUntil(page, "Control+Shift+F", ".search-view .search-widget");
    // The box opens holding the word at the editor's cursor, and may search for it; keys typed
    // before the box has the keyboard are lost. So: the box focused, its text replaced, checked.
    await page.waitForFunction(() => !!document.activeElement?.closest(".search-view .search-widget"), undefined, {
      polling: "raf",
    });
    await page.keyboard.press("Control+A");
    await page.keyboard.type(pattern);
    await page.waitForFunction(`document.activeElement?.value === ${JSON.stringify(pattern)}`, undefined, {
      polling: "raf",
    });
    const before = await page.evaluate(SEARCH_MESSAGE);
    start = Date.now();
    await page.keyboard.press("Enter");
    // The view's message counts the results as they come ("3 results in 2 files", then "329 results
    // in 139 files"): done is the new message once the Search icon's progress badge is gone.
    const message = await page.waitForFunction(
      `(() => { const text = ${SEARCH_MESSAGE}; const searching = ${SEARCHING}; return !searching && (text !== ${JSON.stringify(before)} && /\\d[\\d,]* results? in \\d[\\d,]* files?/.exec(text)?.[0]) || false; })()`,
      undefined,
      { polling: "raf", timeout: 120_000 },
    );
    const findAll = Date.now() - start;
    return { explorer, quickOpen, findAll, findShown: String(await message.jsonValue()) };
  } finally {
    await context.close();
  }
}

/** Opens the workspace and `target` in a new context, for the idle figures; returns the context to close. */
export async function openForIdle(browser: Browser, url: string, target: Target) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  await shows(page, EXPLORER_ROW, "packages", 120_000);
  await openByName(page, target);
  return context;
}
