import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const loaded = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("playwright-core"));

describe("the agent's Chromium", () => {
  it("loads Playwright only when a browser starts, not when the server looks for one (it weighs ~80 MB)", async () => {
    expect(loaded()).toEqual([]);
    const { findChromium } = await import("./chromium");
    expect(findChromium(process.execPath)).toEqual({ path: process.execPath });
    expect(findChromium("off")).toHaveProperty("missing");
    expect(loaded()).toEqual([]);
  });
});
