import type { FindQuery } from "@/lib/search-schemas";

// How the Search panel's replacement is computed, shared by the server (which writes it) and the
// browser (which previews it inline). ripgrep finds with Rust's regex; this JavaScript RegExp from
// the same query is what replaces, and the server checks every chosen match against it first.

export class InvalidPatternError extends Error {}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The query as a global RegExp, Unicode-aware where the pattern allows it (as rg is). */
export function matcherFor(query: Pick<FindQuery, "pattern" | "isRegex" | "matchCase" | "wholeWord">): RegExp {
  let source = query.isRegex ? query.pattern : escapeRegExp(query.pattern);
  if (query.wholeWord) source = `\\b(?:${source})\\b`;
  const flags = query.matchCase ? "g" : "gi";
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw new InvalidPatternError(`The search is not a valid regular expression here: ${(error as Error).message}`);
    }
  }
}

/**
 * What the match of `length` characters at `index` of `line` becomes. In regex mode `$1`,
 * `$<name>` and `$&` expand as in JavaScript's own String.replace: a sticky copy of the regex
 * replaces exactly that one match with the whole line as context (lookarounds included).
 */
export function replacementAt(
  regex: RegExp,
  isRegex: boolean,
  line: string,
  index: number,
  length: number,
  replacement: string,
): string {
  if (!isRegex) return replacement;
  const single = new RegExp(regex.source, `${regex.flags.replace("g", "")}y`);
  single.lastIndex = index;
  const whole = line.replace(single, replacement);
  return whole.slice(index, whole.length - (line.length - index - length));
}
