import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  changeOf,
  earlyTypable,
  mapOffset,
  offsetThrough,
  rebase,
  typed,
  typedOnto,
  typingBound,
  typingPause,
} from "./early-typing";

/** The delta of a change made to `before` by `edit`, as the textarea's observer gets it. */
function deltaOf(before: string, edit: (text: Y.Text) => void) {
  const doc = new Y.Doc();
  const text = doc.getText("content");
  text.insert(0, before);
  let delta: Y.YTextEvent["delta"] = [];
  text.observe((event) => {
    delta = event.delta;
  });
  edit(text);
  return delta;
}

describe("early typing", () => {
  it("sends a textarea's change as the one edit between what both ends keep", () => {
    expect(changeOf("row 300", "row 300 typed")).toEqual({ at: 7, removed: 0, inserted: " typed" });
    expect(changeOf("abcdef", "abXYef")).toEqual({ at: 2, removed: 2, inserted: "XY" });
    expect(changeOf("aaa", "aa")).toEqual({ at: 2, removed: 1, inserted: "" });
    expect(changeOf("same", "same")).toEqual({ at: 4, removed: 0, inserted: "" });
    // Undo of a paste over everything: the whole text.
    expect(changeOf("pasted", "")).toEqual({ at: 0, removed: 6, inserted: "" });
  });

  it("never splits a character made of two code units", () => {
    // 😀 and 😁 share their first half: the change starts before it.
    expect(changeOf("a😀b", "a😁b")).toEqual({ at: 1, removed: 2, inserted: "😁" });
    // U+10000 and U+10400 share their second: the change ends after it.
    expect(changeOf("a\u{10000}b", "a\u{10400}b")).toEqual({ at: 1, removed: 2, inserted: "\u{10400}" });
  });

  it("moves the caret with the others' edits: after text inserted before it, back with text deleted before it, not for edits after it", () => {
    const inserted = deltaOf("hello world", (text) => text.insert(0, ">> "));
    expect(mapOffset(5, inserted)).toBe(8);
    expect(mapOffset(0, inserted)).toBe(0); // inserted at the caret: the caret stays before it
    const deleted = deltaOf("hello world", (text) => text.delete(2, 4));
    expect(mapOffset(8, deleted)).toBe(4);
    expect(mapOffset(4, deleted)).toBe(2); // inside what was deleted: where it was
    expect(mapOffset(1, deleted)).toBe(1);
    const after = deltaOf("hello world", (text) => text.insert(9, "!!"));
    expect(mapOffset(5, after)).toBe(5);
  });

  it("puts what was typed while the document loaded onto its text as it is now, dropping none of it", () => {
    const base = "one\ntwo\nthree\n";
    // Nobody changed it: what was typed, as typed.
    expect(typedOnto({ base, text: "one\ntwo!\nthree\n" }, base)).toEqual({
      change: { at: 7, removed: 0, inserted: "!" },
      caret: 8,
    });
    // Someone added a line above: the typing moves down with its line.
    expect(typedOnto({ base, text: "one\ntwo!\nthree\n" }, "zero\none\ntwo\nthree\n").change).toEqual({
      at: 12,
      removed: 0,
      inserted: "!",
    });
    // ...below: it stays.
    expect(typedOnto({ base, text: "one!\ntwo\nthree\n" }, "one\ntwo\nthree\nfour\n").change).toEqual({
      at: 3,
      removed: 0,
      inserted: "!",
    });
    // Both changed the same word: theirs stands, what was typed follows it.
    const both = typedOnto({ base, text: "one\nTWO\nthree\n" }, "one\n2\nthree\n");
    expect(both.change).toEqual({ at: 5, removed: 0, inserted: "TWO" });
    const merged = "one\n2\nthree\n";
    expect(merged.slice(0, both.change.at) + both.change.inserted + merged.slice(both.change.at)).toBe(
      "one\n2TWO\nthree\n",
    );
    expect(both.caret).toBe(8);
  });

  it("rebases a change over another made to the same text", () => {
    expect(rebase({ at: 2, removed: 1, inserted: "x" }, { at: 5, removed: 0, inserted: "" })).toEqual({
      at: 2,
      removed: 1,
      inserted: "x",
    });
    expect(rebase({ at: 6, removed: 1, inserted: "x" }, { at: 1, removed: 2, inserted: "abcd" })).toEqual({
      at: 8,
      removed: 1,
      inserted: "x",
    });
    expect(offsetThrough(10, { at: 1, removed: 2, inserted: "abcd" })).toBe(12);
    expect(offsetThrough(2, { at: 1, removed: 2, inserted: "abcd" })).toBe(5);
    expect(offsetThrough(1, { at: 1, removed: 2, inserted: "abcd" })).toBe(1);
  });

  it("takes only text whose offsets are the document's, and not so long that the textarea would be slow", () => {
    expect(earlyTypable("a\nb\n")).toBe(true);
    expect(earlyTypable("a\r\nb")).toBe(false);
    expect(earlyTypable("x".repeat(300 * 1024))).toBe(false);
  });

  it("lets the editor's code run only once the text has gone a pause without a key", async () => {
    const paused = (ms: number) => {
      let done = false;
      const pause = typingPause(ms).then(() => {
        done = true;
      });
      return { pause, done: () => done };
    };
    // No text takes typing: at once.
    const idle = paused(10_000);
    await idle.pause;

    typingBound(1);
    const started = performance.now();
    const waiting = paused(150);
    // Keys every 50 ms for 400 ms: still waiting.
    for (let i = 0; i < 8; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      typed();
      expect(waiting.done()).toBe(false);
    }
    const lastKey = performance.now();
    await waiting.pause;
    expect(performance.now() - lastKey).toBeGreaterThanOrEqual(145);
    expect(performance.now() - started).toBeGreaterThanOrEqual(545);

    // The text gave typing up (Monaco took it): at once again.
    typingBound(-1);
    const after = paused(10_000);
    await after.pause;
  });
});
