import { describe, expect, it } from "vitest";
import { renderContext, selectMemories, EMPTY_CONTEXT, type MemoryEntry } from "./context";

const memory = (key: string, value: string, pinned = false): MemoryEntry => ({ scope: "project", key, value, pinned });

describe("memories in the prompt", () => {
  it("shows pinned and relevant memories whole within the budget, lists the rest by key, and counts what did not fit", () => {
    const pinned = memory("style", "Tabs.", true);
    const relevant = memory("deploy", "Staging first.");
    const huge = memory("history", "x".repeat(500));
    const others = Array.from({ length: 10 }, (_, i) => memory(`note-${i}`, `first line ${i}\nsecond line`));
    const all = [pinned, relevant, huge, ...others];
    const selected = selectMemories([pinned, relevant, huge, relevant], all, { full: 200, keys: 250 });
    expect(selected.shown.map((m) => m.key)).toEqual(["style", "deploy"]); // the huge one does not fit; no duplicates
    expect(selected.keys.map((k) => k.key)).toEqual(["history", "note-0", "note-1", "note-2"]);
    expect(selected.keys[1]!.firstLine).toBe("first line 0");
    expect(selected.moreKeys).toBe(7);
    const text = renderContext({ ...EMPTY_CONTEXT, memories: selected }, "");
    expect(text).toContain("### style (project, pinned)\nTabs.");
    expect(text).toContain('- …and 7 more (memory {action: "list"}).');
  });
});
