import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser, Query } from "web-tree-sitter";

// Definitions and references of a source file, from tree-sitter (web-tree-sitter, with the
// grammars of the npm package tree-sitter-wasms): what the repository map ranks.

export type Definition = { name: string; kind: string; line: number };
export type FileTags = { definitions: Definition[]; references: Map<string, number> };

type Grammar = { wasm: string; definitions: string; references: string };

const TS_DEFINITIONS = `
(function_declaration name: (identifier) @function)
(generator_function_declaration name: (identifier) @function)
(class_declaration name: (type_identifier) @class)
(abstract_class_declaration name: (type_identifier) @class)
(interface_declaration name: (type_identifier) @interface)
(type_alias_declaration name: (type_identifier) @type)
(enum_declaration name: (identifier) @enum)
(method_definition name: (property_identifier) @method)
(program (lexical_declaration (variable_declarator name: (identifier) @variable)))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @variable))))`;
const JS_DEFINITIONS = `
(function_declaration name: (identifier) @function)
(generator_function_declaration name: (identifier) @function)
(class_declaration name: (identifier) @class)
(method_definition name: (property_identifier) @method)
(program (lexical_declaration (variable_declarator name: (identifier) @variable)))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @variable))))`;
const TS_REFERENCES = "(identifier) @ref (type_identifier) @ref (property_identifier) @ref";
const JS_REFERENCES = "(identifier) @ref (property_identifier) @ref";

const GRAMMARS: Record<string, Grammar> = {
  ".ts": { wasm: "tree-sitter-typescript.wasm", definitions: TS_DEFINITIONS, references: TS_REFERENCES },
  ".mts": { wasm: "tree-sitter-typescript.wasm", definitions: TS_DEFINITIONS, references: TS_REFERENCES },
  ".cts": { wasm: "tree-sitter-typescript.wasm", definitions: TS_DEFINITIONS, references: TS_REFERENCES },
  ".tsx": { wasm: "tree-sitter-tsx.wasm", definitions: TS_DEFINITIONS, references: TS_REFERENCES },
  ".js": { wasm: "tree-sitter-javascript.wasm", definitions: JS_DEFINITIONS, references: JS_REFERENCES },
  ".mjs": { wasm: "tree-sitter-javascript.wasm", definitions: JS_DEFINITIONS, references: JS_REFERENCES },
  ".cjs": { wasm: "tree-sitter-javascript.wasm", definitions: JS_DEFINITIONS, references: JS_REFERENCES },
  ".jsx": { wasm: "tree-sitter-javascript.wasm", definitions: JS_DEFINITIONS, references: JS_REFERENCES },
  ".py": {
    wasm: "tree-sitter-python.wasm",
    definitions:
      "(function_definition name: (identifier) @function) (class_definition name: (identifier) @class) (module (expression_statement (assignment left: (identifier) @variable)))",
    references: "(identifier) @ref",
  },
};

export const TAGGED_EXTENSIONS = new Set(Object.keys(GRAMMARS));

const require = createRequire(import.meta.url);
const loaded = new Map<string, Promise<{ parser: Parser; definitions: Query; references: Query }>>();
let init: Promise<void> | undefined;

function tagger(grammar: Grammar) {
  let found = loaded.get(grammar.wasm + grammar.definitions);
  if (!found) {
    found = (async () => {
      init ??= Parser.init();
      await init;
      const wasmDir = path.join(path.dirname(require.resolve("tree-sitter-wasms/package.json")), "out");
      const language = await Language.load(path.join(wasmDir, grammar.wasm));
      const parser = new Parser();
      parser.setLanguage(language);
      return {
        parser,
        definitions: new Query(language, grammar.definitions),
        references: new Query(language, grammar.references),
      };
    })();
    loaded.set(grammar.wasm + grammar.definitions, found);
  }
  return found;
}

/** The tags of one file, or null when no grammar covers its extension. */
export async function tagFile(file: string, text: string): Promise<FileTags | null> {
  const grammar = GRAMMARS[path.extname(file).toLowerCase()];
  if (!grammar) return null;
  const { parser, definitions, references } = await tagger(grammar);
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const defs = definitions
      .captures(tree.rootNode)
      .map((c) => ({ name: c.node.text, kind: c.name, line: c.node.startPosition.row + 1 }));
    const refs = new Map<string, number>();
    for (const capture of references.captures(tree.rootNode))
      refs.set(capture.node.text, (refs.get(capture.node.text) ?? 0) + 1);
    return { definitions: defs, references: refs };
  } finally {
    tree.delete();
  }
}
