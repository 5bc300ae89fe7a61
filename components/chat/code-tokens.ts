// Syntax highlighting for code in the transcript with Monaco's own tokenizers (already a
// dependency; the editor loads it anyway): Monaco gives token types, React renders them as
// text in spans, so no HTML string from anywhere reaches the page. Loaded lazily, off the first paint.

export type CodeToken = { text: string; type: string };

type Monaco = typeof import("@/components/editor/monaco");
let monacoPromise: Promise<Monaco> | null = null;
const loadMonaco = () => (monacoPromise ??= import("@/components/editor/monaco"));

function languageFor(monaco: Monaco, name: string): string | null {
  const wanted = name.toLowerCase();
  const found = monaco.languages
    .getLanguages()
    .find(
      (l) =>
        l.id === wanted || l.aliases?.some((a) => a.toLowerCase() === wanted) || l.extensions?.includes(`.${wanted}`),
    );
  return found?.id ?? null;
}

/** Lines of tokens for `code` in the language a fence names; null when it is not one Monaco knows. */
export async function tokenizeCode(code: string, language: string): Promise<CodeToken[][] | null> {
  const monaco = await loadMonaco();
  const id = languageFor(monaco, language);
  if (!id) return null;
  await monaco.editor.colorize("", id, {}); // loads the language's tokenizer, which tokenize() does not wait for
  const lines = code.split("\n");
  return monaco.editor.tokenize(code, id).map((tokens, i) => {
    const line = lines[i] ?? "";
    return tokens.map((token, t) => ({
      type: token.type,
      text: line.slice(token.offset, tokens[t + 1]?.offset ?? line.length),
    }));
  });
}

/** A CSS class for a Monaco token type such as "keyword.ts" or "string.quoted.json". */
export function tokenClass(type: string): string {
  const kind = type.split(".")[0] ?? "";
  return [
    "keyword",
    "string",
    "comment",
    "number",
    "type",
    "regexp",
    "tag",
    "attribute",
    "variable",
    "constant",
    "delimiter",
  ].includes(kind)
    ? `tok-${kind}`
    : "";
}
