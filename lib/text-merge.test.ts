import { describe, expect, it } from "vitest";
import { applyTextEdits, mergeAsEdits, mergeText, textEdits } from "./text-merge";

const BASE = [
  "import a from 'a';",
  "",
  "function one() {",
  "  return 1;",
  "}",
  "",
  "function two() {",
  "  return 2;",
  "}",
  "",
].join("\n");

describe("mergeText", () => {
  it("combines edits to different lines from both sides", () => {
    const mine = BASE.replace("return 1;", "return 11;");
    const theirs = BASE.replace("return 2;", "return 22;").replace(
      "import a from 'a';",
      "import a from 'a';\nimport b from 'b';",
    );
    const merged = mergeText(BASE, mine, theirs);
    expect(merged.conflicts).toBe(0);
    expect(merged.text).toBe(
      BASE.replace("return 1;", "return 11;")
        .replace("return 2;", "return 22;")
        .replace("import a from 'a';", "import a from 'a';\nimport b from 'b';"),
    );
  });

  it("keeps both versions of the same lines between markers, mine first", () => {
    const merged = mergeText(
      BASE,
      BASE.replace("return 1;", "return 'mine';"),
      BASE.replace("return 1;", "return 'disk';"),
    );
    expect(merged.conflicts).toBe(1);
    expect(merged.text).toContain(
      ["<<<<<<< your unsaved changes", "  return 'mine';", "=======", "  return 'disk';", ">>>>>>> on disk"].join("\n"),
    );
    expect(merged.text.startsWith("import a from 'a';\n")).toBe(true);
    expect(merged.text.endsWith("function two() {\n  return 2;\n}\n")).toBe(true);
  });

  it("does not call the same change on both sides a conflict, and keeps CRLF line endings", () => {
    const crlf = "one\r\ntwo\r\nthree\r\n";
    const both = crlf.replace("two", "TWO");
    expect(mergeText(crlf, both, both)).toEqual({ text: both, conflicts: 0 });
    expect(mergeText(crlf, crlf.replace("one", "ONE"), crlf.replace("three", "THREE"))).toEqual({
      text: "ONE\r\ntwo\r\nTHREE\r\n",
      conflicts: 0,
    });
  });
});

describe("textEdits", () => {
  const cases: Array<[string, string]> = [
    ["a\nb\nc", "a\nB\nc"],
    ["a\nb\nc", "a\nb\nc\nd"],
    ["a\nb\nc\n", "a\nb\nc\nd\n"],
    ["a\nb\nc", "x\na\nb\nc"],
    ["a\nb\nc", "a\nc"],
    ["a\nb\nc", "c"],
    ["", "hello\nworld"],
    ["hello\nworld", ""],
    ["one line", "one longer line"],
    ["a\nb\nc\nd\ne", "A\nb\nc\nd\nE"],
    ["a\n", "a"],
    ["a", "a\n"],
    ["x\ny", "x\ny\n\n"],
  ];
  it.each(cases)("turns %j into %j", (from, to) => {
    expect(applyTextEdits(from, textEdits(from, to))).toBe(to);
  });

  it("leaves the text between two changes alone", () => {
    const edits = textEdits("first\nmiddle\nlast", "FIRST\nmiddle\nLAST");
    expect(edits.length).toBe(2);
    expect(edits.every((edit) => !edit.insert.includes("middle"))).toBe(true);
  });
});

describe("mergeAsEdits", () => {
  const source = `import { oldName } from "./names";\n\nexport const b = oldName("b"); // oldName\n`;
  const merge = (base: string, mine: string, theirs: string) => {
    const { edits, conflicts } = mergeAsEdits(base, mine, theirs);
    return { text: applyTextEdits(mine, edits), conflicts };
  };

  it("merges typing on the line after a changed one without markers", () => {
    const theirs = source.replaceAll("oldName", "newName");
    expect(merge(source, `${source}// mine`, theirs)).toEqual({ text: `${theirs}// mine`, conflicts: 0 });
  });

  it("merges typing and a change on disk in the same line when they do not touch", () => {
    expect(merge("hello world\n", "hello there world\n", "hello world!\n")).toEqual({
      text: "hello there world!\n",
      conflicts: 0,
    });
  });

  it("keeps both versions between markers when the changes overlap", () => {
    const { text, conflicts } = merge("keep\nedit me\nkeep\n", "keep\nedit you\nkeep\n", "keep\nedited\nkeep\n");
    expect(conflicts).toBe(1);
    expect(text).toContain("edit you");
    expect(text).toContain("edited");
  });
});
