import { describe, expect, it } from "vitest";
import { formatRules, parseRulesText } from "./policy-rules-text";

describe("policy rules as text", () => {
  it("reads tools and tool: prefix lines, skipping blanks and comments, and writes them back", () => {
    const parsed = parseRulesText("# safe\nshell: npm   test\n\nweb_fetch\n*");
    expect(parsed).toEqual({
      ok: true,
      rules: [{ tool: "shell", commandPrefix: "npm test" }, { tool: "web_fetch" }, { tool: "*" }],
    });
    expect(formatRules(parsed.ok ? parsed.rules : [])).toBe("shell: npm test\nweb_fetch\n*");
  });

  it("names the line of each problem", () => {
    expect(parseRulesText("shell:\nrm -rf /\nshell: ls\nshell: ls")).toEqual({
      ok: false,
      problems: [
        { line: 1, message: 'a command prefix is missing after "shell:"' },
        { line: 2, message: '"rm -rf /" is not a tool name (letters, digits, _ . -, or * for every tool)' },
        { line: 4, message: "this rule is already listed" },
      ],
    });
  });
});
