// The allow and deny rules of a project's approval policy as people edit them: one rule per
// line, `tool` or `tool: command prefix` (the prefix applies to tools that run a command, such as
// shell). `*` names every tool. Blank lines and lines starting with `#` are ignored. Shared by the
// settings page (checked as you type) and its tests; the server checks the result again with zod.

export type RuleText = { tool: string; commandPrefix?: string };
export type RuleProblem = { line: number; message: string };
export type ParsedRules = { ok: true; rules: RuleText[] } | { ok: false; problems: RuleProblem[] };

export const MAX_RULES = 200;
const TOOL_NAME = /^(\*|[A-Za-z0-9][\w.-]*)$/;

export function parseRulesText(text: string): ParsedRules {
  const rules: RuleText[] = [];
  const problems: RuleProblem[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    const tool = (colon === -1 ? line : line.slice(0, colon)).trim();
    const prefix =
      colon === -1
        ? undefined
        : line
            .slice(colon + 1)
            .trim()
            .replace(/\s+/g, " ");
    if (!TOOL_NAME.test(tool)) {
      problems.push({
        line: index + 1,
        message: `"${tool || line}" is not a tool name (letters, digits, _ . -, or * for every tool)`,
      });
      return;
    }
    if (prefix === "") {
      problems.push({ line: index + 1, message: `a command prefix is missing after "${tool}:"` });
      return;
    }
    const key = `${tool}\u0000${prefix ?? ""}`;
    if (seen.has(key)) {
      problems.push({ line: index + 1, message: "this rule is already listed" });
      return;
    }
    seen.add(key);
    rules.push(prefix === undefined ? { tool } : { tool, commandPrefix: prefix });
  });
  if (rules.length > MAX_RULES) problems.push({ line: 0, message: `at most ${MAX_RULES} rules` });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rules };
}

export function formatRules(rules: readonly RuleText[]): string {
  return rules.map((r) => (r.commandPrefix ? `${r.tool}: ${r.commandPrefix}` : r.tool)).join("\n");
}
