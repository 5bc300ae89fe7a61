import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, UNSEEN_BROWSER_UI_FEATURES } from "./chromium";

/** The features Playwright turns off at every Chromium launch, read from the installed playwright-core. */
function playwrightDisabledFeatures(): string[] {
  const bundle = readFileSync(createRequire(import.meta.url).resolve("playwright-core/lib/coreBundle"), "utf8");
  const list = /disabledFeatures = \[([^\]]*)\]/.exec(bundle)?.[1];
  if (!list) throw new Error("playwright-core's list of disabled features was not found: see e2e/chromium.ts");
  return [...list.matchAll(/^\s*"([^"]+)"/gm)].map((match) => match[1]!);
}

describe("Chromium's flags for the browser tests and benchmarks", () => {
  it("turn off every feature Playwright turns off, and the unseen omnibox popups, in one --disable-features", () => {
    // Chromium keeps only the last --disable-features; Playwright's comes before ours.
    const lists = CHROMIUM_ARGS.filter((arg) => arg.startsWith("--disable-features="));
    expect(lists).toHaveLength(1);
    const ours = lists[0]!.slice("--disable-features=".length).split(",");
    const playwright = playwrightDisabledFeatures();
    expect(playwright.length).toBeGreaterThan(5);
    expect(ours).toEqual(expect.arrayContaining([...playwright, ...UNSEEN_BROWSER_UI_FEATURES]));
  });
});
