import { afterAll, describe, expect, it } from "vitest";
import { until } from "@/server/test/until";
import { findChromium } from "./chromium";
import { createBrowsers } from "./session-browsers";

// What the agent's browsers hold, and for how long: a context per session, a new one when another
// person acts in the session, closed when unused, released, or past the bound (oldest first).

const found = findChromium(undefined);

describe.runIf("path" in found)("the agent's browsers", () => {
  const browsers = createBrowsers({
    chromium: "path" in found ? found.path : "",
    idleMs: 4_000,
    maxContexts: 2,
    previewSession: () => null,
    gate: {
      policy: async () => ({ policy: "off", allowHosts: [] }),
      previewTarget: () => null,
      previewAddress: () => null,
      tandemHosts: () => [],
    },
  });
  afterAll(() => browsers.close());
  const key = (sessionId: string, userId = "ada") => ({ sessionId, projectId: "p", userId });

  it("keeps a session's page between calls, and gives another person a context of their own", async () => {
    const page = await (await browsers.session(key("s1"))).page();
    expect(await (await browsers.session(key("s1"))).page()).toBe(page);
    const theirs = await (await browsers.session(key("s1", "bob"))).page();
    expect(theirs).not.toBe(page);
    expect(page.isClosed()).toBe(true);
    await browsers.release("s1");
    expect(theirs.isClosed()).toBe(true);
  }, 30_000);

  it("closes a context left unused, and the oldest one past the bound", async () => {
    const idle = await (await browsers.session(key("idle"))).page();
    await until(() => idle.isClosed(), "the unused context closed", 20_000);
    const first = await (await browsers.session(key("a"))).page();
    await (await browsers.session(key("b"))).page();
    const third = await (await browsers.session(key("c"))).page();
    expect(first.isClosed()).toBe(true);
    expect(third.isClosed()).toBe(false);
  }, 60_000);
});
