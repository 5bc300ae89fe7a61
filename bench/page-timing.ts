// What the browser benchmarks share: a signed-in context, and noticing a moment within a frame of
// the page showing it and acting there at once, as a person would (bench:ui, bench:monorepo).
import type { Browser, BrowserContext, Page } from "@playwright/test";

export async function newContext(
  browser: Browser,
  base: string,
  cookie: string,
  sessionKey?: { projectId: string; sessionId: string },
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies(
    cookie.split("; ").map((pair) => {
      const [name, ...value] = pair.split("=");
      return { name: name!, value: value.join("="), url: base };
    }),
  );
  if (sessionKey) {
    await context.addInitScript(
      ([key, id]) => localStorage.setItem(key!, id!),
      [`tandem-agent-session:${sessionKey.projectId}`, sessionKey.sessionId],
    );
  }
  return context;
}

/** Where a person would click an element: its middle, at most 10 px below its top (a long list's first line). */
export type Point = { x: number; y: number };

/**
 * Resolves within a frame of the page showing an element that matches `selector` and has `text`,
 * with the point to click it. Playwright's own waits poll with growing pauses, up to 500 ms apart,
 * so they timed the harness as much as the page: the explorer's row was on screen 47 to 426 ms
 * before `waitFor` returned. The wait runs in the page, on each animation frame, and answers in the
 * same round trip. Shown means on top at that point: an element can have its box and text and still
 * be clipped or covered. Monaco's lines were, for 10-90 ms, while the editor was laid out at 5x5 px
 * (until app/ide.css had it made at its real size), and a click there reached the page behind
 * them (twice in 50 reloads). Monaco writes its spaces as no-break spaces. The page's code is a
 * string: tsx would wrap a named function in a helper that exists only in Node.
 */
export async function shows(page: Page, selector: string, text = "", timeout = 60_000): Promise<Point> {
  return (await showsFirst(page, [[selector, text]], timeout)).point;
}

/**
 * As `shows`, for the first of several elements to show: the first listed of those that show in
 * the same frame. `then`, a statement, runs in the page in that frame (a watch started there
 * costs no round trip of its own).
 */
export async function showsFirst(
  page: Page,
  targets: [selector: string, text: string][],
  timeout = 60_000,
  then = "",
): Promise<{ index: number; point: Point }> {
  const deadline = Date.now() + timeout;
  const script = (left: number) => `new Promise((resolve, reject) => {
    const targets = ${JSON.stringify(targets)}, end = performance.now() + ${left};
    (function frame() {
      for (let index = 0; index < targets.length; index++) {
        const [selector, text] = targets[index];
        for (const element of document.querySelectorAll(selector)) {
          const box = element.getBoundingClientRect();
          const x = box.x + box.width / 2, y = box.y + Math.min(box.height / 2, 10);
          if (element.contains(document.elementFromPoint(x, y)) && (element.textContent ?? "").replaceAll("\\u00a0", " ").includes(text)) {
            ${then}
            return resolve({ index, point: { x, y } });
          }
        }
      }
      if (performance.now() > end) return reject(new Error("not shown: " + JSON.stringify(targets)));
      requestAnimationFrame(frame);
    })();
  })`;
  for (;;) {
    try {
      return await page.evaluate<{ index: number; point: Point }>(script(Math.max(0, deadline - Date.now())));
    } catch (error) {
      // A navigation replaced the document under the wait: wait in the new one.
      if (Date.now() >= deadline || !/context was destroyed|navigation/i.test(String(error))) throw error;
    }
  }
}

/**
 * A person's click where an element showed: one mouse event at that point, dispatched at once.
 * Playwright's `locator.click()` first checks, over several round trips and animation frames, that
 * the element is visible, stable and hit: on a busy cold page that took 200-400 ms in which the
 * page had already shown the element (an in-page listener saw the row on screen 200-250 ms and
 * the editor's text about 400 ms before their clicks arrived).
 */
export const clickAt = (page: Page, point: Point) => page.mouse.click(point.x, point.y);

export const EDITOR_LINES = "[data-testid=editor] .monaco-editor .view-lines";
