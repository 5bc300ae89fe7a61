import { describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { markdownTableTool } from "./markdown-table";

const session = useToolSessions();

describe("markdown_table", () => {
  it("renders objects with their keys as columns, escaping pipes and line breaks, and shows a table", async () => {
    const s = await session();
    const run = await s.run(markdownTableTool, {
      rows: [
        { name: "a|b", size: 3 },
        { name: "two\nlines", size: null, extra: true },
      ],
      align: ["left", "right"],
    });
    expect(run.llm).toBe(
      ["| name | size | extra |", "| --- | ---: | --- |", "| a\\|b | 3 |  |", "| two<br>lines |  | true |"].join("\n"),
    );
    expect(run.display).toEqual({
      kind: "table",
      columns: ["name", "size", "extra"],
      rows: [
        ["a|b", "3", ""],
        ["two\nlines", "", "true"],
      ],
    });
  });

  it("takes arrays with columns, and says what is wrong otherwise", async () => {
    const s = await session();
    const run = await s.run(markdownTableTool, { rows: [["x", 1]], columns: ["k", "v"], align: ["center"] });
    expect(run.llm).toBe("| k | v |\n| :---: | --- |\n| x | 1 |");
    expect((await s.run(markdownTableTool, { rows: [["x"]] })).llm).toContain("need columns");
    expect((await s.run(markdownTableTool, { rows: [["x"], { a: 1 }] })).llm).toContain("not a mix");
    expect((await s.run(markdownTableTool, { rows: [] })).error?.code).toBe("INVALID_INPUT");
  });
});
