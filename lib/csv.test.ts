import { describe, expect, it } from "vitest";
import { toCsv } from "./csv";

describe("toCsv", () => {
  it("quotes commas, quotes and line breaks", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          ["x,y", 'say "hi"'],
          ["two\nlines", 3],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"two\nlines",3\r\n');
  });

  it("keeps a cell a spreadsheet would run as a formula as text", () => {
    expect(toCsv(["name"], [['=HYPERLINK("http://evil")'], ["+1"], ["@SUM(A1)"], ["-2"]])).toBe(
      'name\r\n"\'=HYPERLINK(""http://evil"")"\r\n\'+1\r\n\'@SUM(A1)\r\n\'-2\r\n',
    );
  });

  it("writes numbers, dates and empty cells plainly", () => {
    expect(toCsv(["n", "d", "e"], [[-1.5, new Date("2026-11-29T00:00:00Z"), null]])).toBe(
      "n,d,e\r\n-1.5,2026-11-29T00:00:00.000Z,\r\n",
    );
  });
});
