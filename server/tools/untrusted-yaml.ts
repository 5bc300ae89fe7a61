import { CST, Lexer, parse, YAMLError } from "yaml";

// YAML (and JSON, which YAML reads) that someone untrusted wrote: a workflow file in the workspace
// or one the model sends inline. The yaml package composes nested collections recursively: about a
// thousand levels of `[` overflow the stack, and ten thousand (20 KB) took 2.5 s of the server's
// thread, or its whole memory with pretty errors. So the text's size and an upper bound of its
// nesting are checked first, from the package's own lexer (linear, and it reads quotes and block
// scalars as the parser will), and aliases are capped (`maxAliasCount`, against "billion laughs").

export const YAML_MAX_CHARS = 64 * 1024;
export const YAML_MAX_DEPTH = 32;

export class YamlRefusal extends Error {}

export function parseUntrustedYaml(
  text: string,
  limits = { maxChars: YAML_MAX_CHARS, maxDepth: YAML_MAX_DEPTH },
): unknown {
  if (text.length > limits.maxChars)
    throw new YamlRefusal(`it is ${text.length} characters long; at most ${limits.maxChars} are read`);
  if (nestingExceeds(text, limits.maxDepth))
    throw new YamlRefusal(`it nests deeper than ${limits.maxDepth} levels; flatten it`);
  try {
    return parse(text, { maxAliasCount: 50, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    // A syntax error is a YAMLError with its place; too many aliases, a ReferenceError.
    const offset = error instanceof YAMLError ? error.pos[0] : undefined;
    const before = offset === undefined ? null : text.slice(0, offset).split("\n");
    const where = before ? ` (line ${before.length}, column ${before.at(-1)!.length + 1})` : "";
    throw new YamlRefusal(`not valid YAML${where}: ${String((error as Error).message).split("\n")[0]}`);
  }
}

/**
 * Whether the text may nest deeper than `max`. An upper bound: flow collections open and close
 * by the lexer's own indicators; in block style each deeper indentation can hold two levels (a
 * map and a sequence written at its key's column), plus the indicators on the line (`- - x`,
 * `- a: b`, `? `). Comments and blank lines do not count.
 */
function nestingExceeds(text: string, max: number): boolean {
  const indents: number[] = [];
  let flow = 0;
  let onLine = 0;
  let lineStart = true;
  let indent = 0;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === "newline") {
      lineStart = true;
      indent = 0;
      onLine = 0;
      continue;
    }
    if (type === "space" && lineStart) {
      indent = token.length;
      continue;
    }
    if (type === "comment" || type === "doc-mode" || type === "space") continue;
    if (lineStart && flow === 0) {
      while (indents.length > 0 && indents.at(-1)! >= indent) indents.pop();
      indents.push(indent);
    }
    lineStart = false;
    if (type === "flow-seq-start" || type === "flow-map-start") flow += 1;
    else if (type === "flow-seq-end" || type === "flow-map-end") flow = Math.max(0, flow - 1);
    else if (type === "seq-item-ind" || type === "explicit-key-ind" || type === "map-value-ind") onLine += 1;
    if (2 * indents.length + onLine + flow > max) return true;
  }
  return false;
}
