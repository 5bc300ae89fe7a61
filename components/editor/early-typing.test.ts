import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { changeOf, earlyTypable, mapOffset } from "./early-typing";

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

  it("takes only text whose offsets are the document's, and not so long that the textarea would be slow", () => {
    expect(earlyTypable("a\nb\n")).toBe(true);
    expect(earlyTypable("a\r\nb")).toBe(false);
    expect(earlyTypable("x".repeat(300 * 1024))).toBe(false);
  });
});
