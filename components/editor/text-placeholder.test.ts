import { describe, expect, it } from "vitest";
import { cursorOf, scrollOf, visibleLines } from "./text-placeholder";

describe("the text shown before the editor", () => {
  it("scrolls where the tab's remembered Monaco view was, and to the top when that is unreadable", () => {
    const view = {
      cursorState: [],
      viewState: { scrollLeft: 40, firstPosition: { lineNumber: 11, column: 1 }, firstPositionDeltaTop: -5 },
    };
    expect(scrollOf(view)).toEqual({ top: 185, left: 40 });
    for (const unreadable of [undefined, null, "view", { viewState: { firstPosition: { lineNumber: 0 } } }])
      expect(scrollOf(unreadable)).toEqual({ top: 0, left: 0 });
  });

  it("draws only the lines in view, and clamps the scroll at the end as Monaco does", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n");
    const top = visibleLines(text, 0, 100);
    expect(top).toMatchObject({ first: 0, offset: 0 });
    expect(top.lines).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7"]);
    // Half a line scrolled: the first line drawn starts above the view.
    expect(visibleLines(text, 9 * 18 + 9, 100)).toMatchObject({ first: 9, offset: -9 });
    // No scrolling past the last line (scrollBeyondLastLine: false).
    const end = visibleLines(text, 1_000_000, 180);
    expect(end.lines.at(-1)).toBe("line 100");
    expect(end.first).toBe(90);
    // A file shorter than the view does not scroll at all; CRLF and CR end lines too.
    expect(visibleLines("a\r\nb\rc", 500, 400)).toEqual({ first: 0, offset: 0, lines: ["a", "b", "c"] });
  });

  it("finds a remembered cursor in the text, clamped to its line and to the text", () => {
    const text = "first\nsecond line\nthird";
    const at = (lineNumber: number, column: number) =>
      cursorOf({ cursorState: [{ position: { lineNumber, column } }] }, text);
    expect(at(1, 1)).toBe(0);
    expect(at(2, 3)).toBe(8);
    expect(at(2, 99)).toBe(17); // past the line's end: its end
    expect(at(9, 4)).toBe(text.length); // past the text: its end
    expect(cursorOf({ cursorState: [] }, text)).toBe(0);
    expect(cursorOf("unreadable", text)).toBe(0);
  });
});
