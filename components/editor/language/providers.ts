import * as monaco from "@/components/editor/monaco";
import type {
  CodeAction,
  Command,
  CompletionItem,
  CompletionList,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkupContent,
  SignatureHelp,
  SymbolInformation,
  TextEdit,
} from "vscode-languageserver-protocol";
import { ensureModels, pathOfUri } from "@/components/editor/language/peek-models";
import type { LanguageSession } from "@/components/editor/language/language-session";
import type { ServerConnection } from "@/components/editor/language/server-connection";

// Monaco's language features, answered by the project's language servers. Each provider asks the
// server of the model's language; a server that is starting or restarting answers nothing and the
// editor carries on. Renames go through the API (one transaction, open editors reload).

type Position = { line: number; character: number };
type LspRange = { start: Position; end: Position };

const toRange = (r: LspRange) =>
  new monaco.Range(r.start.line + 1, r.start.character + 1, r.end.line + 1, r.end.character + 1);
const toPosition = (p: monaco.Position): Position => ({ line: p.lineNumber - 1, character: p.column - 1 });
const docPosition = (model: monaco.editor.ITextModel, position: monaco.Position) => ({
  textDocument: { uri: model.uri.toString() },
  position: toPosition(position),
});
const markdown = (value: string | MarkupContent | { language: string; value: string }): monaco.IMarkdownString =>
  typeof value === "string"
    ? { value }
    : "kind" in value
      ? { value: value.value }
      : { value: `\`\`\`${value.language}\n${value.value}\n\`\`\`` };

/** What the providers ask of the language client (language-client.ts makes it). */
export type LanguageClient = {
  /** The connection serving a model's language, or null when no server covers it. */
  connectionFor(model: monaco.editor.ITextModel): ServerConnection | null;
  /** A connection by server id (workspace symbols ask each open file's server that answers them). */
  connection(server: string): ServerConnection;
  /** The server of a model and the language id it is opened with; undefined when none covers it. */
  serverOf(model: monaco.editor.ITextModel): { server: string; languageId: string } | undefined;
  session: LanguageSession;
};

async function ask<T>(
  client: LanguageClient,
  model: monaco.editor.ITextModel,
  method: string,
  params: unknown,
  token?: monaco.CancellationToken,
): Promise<T | null> {
  const connection = client.connectionFor(model)?.current();
  if (!connection) return null;
  const controller = new AbortController();
  token?.onCancellationRequested(() => controller.abort());
  try {
    return (await connection.sendRequest(method, params)) as T;
  } catch {
    return null;
  }
}

const toLocations = (result: Location | Location[] | LocationLink[] | null): monaco.languages.Location[] =>
  (result ? (Array.isArray(result) ? result : [result]) : [])
    .map((l) =>
      "targetUri" in l
        ? { uri: monaco.Uri.parse(l.targetUri), range: toRange(l.targetSelectionRange) }
        : { uri: monaco.Uri.parse(l.uri), range: toRange(l.range) },
    )
    .filter((l) => l.uri.scheme === "file");

// LSP CompletionItemKind (1-based) → Monaco's.
const K = monaco.languages.CompletionItemKind;
const COMPLETION_KINDS = [
  K.Text,
  K.Method,
  K.Function,
  K.Constructor,
  K.Field,
  K.Variable,
  K.Class,
  K.Interface,
  K.Module,
  K.Property,
  K.Unit,
  K.Value,
  K.Enum,
  K.Keyword,
  K.Snippet,
  K.Color,
  K.File,
  K.Reference,
  K.Folder,
  K.EnumMember,
  K.Constant,
  K.Struct,
  K.Event,
  K.Operator,
  K.TypeParameter,
];
const S = monaco.languages.SymbolKind;
const SYMBOL_KINDS = [
  S.File,
  S.Module,
  S.Namespace,
  S.Package,
  S.Class,
  S.Method,
  S.Property,
  S.Field,
  S.Constructor,
  S.Enum,
  S.Interface,
  S.Function,
  S.Variable,
  S.Constant,
  S.String,
  S.Number,
  S.Boolean,
  S.Array,
  S.Object,
  S.Key,
  S.Null,
  S.EnumMember,
  S.Struct,
  S.Event,
  S.Operator,
  S.TypeParameter,
];

const toTextEdits = (edits: TextEdit[] | null) =>
  (edits ?? []).map((e) => ({ range: toRange(e.range), text: e.newText }));

/** `languages`: the models the servers serve, by Monaco language id or file pattern. */
export function registerProviders(
  client: LanguageClient,
  languages: monaco.languages.LanguageSelector,
): monaco.IDisposable {
  const L = monaco.languages;
  const items = new WeakMap<
    monaco.languages.CompletionItem,
    { item: CompletionItem; model: monaco.editor.ITextModel }
  >();
  const registrations = [
    L.registerHoverProvider(languages, {
      async provideHover(model, position, token) {
        const hover = await ask<Hover>(client, model, "textDocument/hover", docPosition(model, position), token);
        if (!hover) return null;
        const contents = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
        return { contents: contents.map(markdown), ...(hover.range ? { range: toRange(hover.range) } : {}) };
      },
    }),
    L.registerCompletionItemProvider(languages, {
      triggerCharacters: [".", '"', "'", "/", "@", "<", ":"],
      async provideCompletionItems(model, position, context, token) {
        const result = await ask<CompletionList | CompletionItem[]>(
          client,
          model,
          "textDocument/completion",
          {
            ...docPosition(model, position),
            context: { triggerKind: context.triggerKind + 1, triggerCharacter: context.triggerCharacter },
          },
          token,
        );
        if (!result) return { suggestions: [] };
        const list = Array.isArray(result) ? result : result.items;
        const word = model.getWordUntilPosition(position);
        const fallback = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
        const suggestions = list.map((item) => {
          const edit = item.textEdit;
          const suggestion: monaco.languages.CompletionItem = {
            label: item.label,
            kind: COMPLETION_KINDS[(item.kind ?? 1) - 1] ?? K.Text,
            detail: item.detail,
            documentation: item.documentation ? markdown(item.documentation) : undefined,
            sortText: item.sortText,
            filterText: item.filterText,
            insertText: edit ? edit.newText : (item.insertText ?? item.label),
            insertTextRules: item.insertTextFormat === 2 ? L.CompletionItemInsertTextRule.InsertAsSnippet : undefined,
            range: edit && "range" in edit ? toRange(edit.range) : fallback,
            additionalTextEdits: item.additionalTextEdits?.map((e) => ({ range: toRange(e.range), text: e.newText })),
          };
          items.set(suggestion, { item, model });
          return suggestion;
        });
        return { suggestions, incomplete: !Array.isArray(result) && result.isIncomplete };
      },
      async resolveCompletionItem(suggestion, token) {
        const origin = items.get(suggestion);
        if (!origin || suggestion.documentation) return suggestion;
        const resolved = await ask<CompletionItem>(client, origin.model, "completionItem/resolve", origin.item, token);
        return resolved
          ? {
              ...suggestion,
              detail: resolved.detail ?? suggestion.detail,
              documentation: resolved.documentation ? markdown(resolved.documentation) : undefined,
            }
          : suggestion;
      },
    }),
    L.registerSignatureHelpProvider(languages, {
      signatureHelpTriggerCharacters: ["(", ","],
      async provideSignatureHelp(model, position, token) {
        const help = await ask<SignatureHelp>(
          client,
          model,
          "textDocument/signatureHelp",
          docPosition(model, position),
          token,
        );
        if (!help || help.signatures.length === 0) return null;
        return {
          value: {
            activeSignature: help.activeSignature ?? 0,
            activeParameter: help.activeParameter ?? 0,
            signatures: help.signatures.map((s) => ({
              label: s.label,
              documentation: s.documentation ? markdown(s.documentation) : undefined,
              parameters: (s.parameters ?? []).map((p) => ({
                label: p.label,
                documentation: p.documentation ? markdown(p.documentation) : undefined,
              })),
            })),
          },
          dispose() {},
        };
      },
    }),
    L.registerDefinitionProvider(languages, {
      async provideDefinition(model, position, token) {
        return ensureModels(
          client.session,
          toLocations(await ask(client, model, "textDocument/definition", docPosition(model, position), token)),
        );
      },
    }),
    L.registerReferenceProvider(languages, {
      async provideReferences(model, position, context, token) {
        return ensureModels(
          client.session,
          toLocations(
            await ask(client, model, "textDocument/references", { ...docPosition(model, position), context }, token),
          ),
        );
      },
    }),
    L.registerDocumentSymbolProvider(languages, {
      async provideDocumentSymbols(model, token) {
        const result = await ask<(DocumentSymbol | SymbolInformation)[]>(
          client,
          model,
          "textDocument/documentSymbol",
          { textDocument: { uri: model.uri.toString() } },
          token,
        );
        const convert = (s: DocumentSymbol | SymbolInformation): monaco.languages.DocumentSymbol => {
          const range = "location" in s ? toRange(s.location.range) : toRange(s.range);
          return {
            name: s.name,
            detail: "detail" in s ? (s.detail ?? "") : "",
            kind: SYMBOL_KINDS[s.kind - 1] ?? S.Variable,
            tags: [],
            range,
            selectionRange: "selectionRange" in s ? toRange(s.selectionRange) : range,
            children: "children" in s ? (s.children ?? []).map(convert) : [],
          };
        };
        return (result ?? []).map(convert);
      },
    }),
    L.registerDocumentFormattingEditProvider(languages, {
      async provideDocumentFormattingEdits(model, options, token) {
        return toTextEdits(
          await ask(
            client,
            model,
            "textDocument/formatting",
            {
              textDocument: { uri: model.uri.toString() },
              options: { tabSize: options.tabSize, insertSpaces: options.insertSpaces },
            },
            token,
          ),
        );
      },
    }),
    L.registerCodeActionProvider(languages, {
      async provideCodeActions(model, range, context, token) {
        const diagnostics = context.markers.map((m) => ({
          range: {
            start: { line: m.startLineNumber - 1, character: m.startColumn - 1 },
            end: { line: m.endLineNumber - 1, character: m.endColumn - 1 },
          },
          message: m.message,
          code: m.code,
          source: m.source,
          severity: m.severity === monaco.MarkerSeverity.Error ? 1 : 2,
        }));
        const result = await ask<(CodeAction | Command)[]>(
          client,
          model,
          "textDocument/codeAction",
          {
            textDocument: { uri: model.uri.toString() },
            range: { start: toPosition(range.getStartPosition()), end: toPosition(range.getEndPosition()) },
            context: { diagnostics, only: context.only ? [context.only] : undefined },
          },
          token,
        );
        // Only actions that carry their edits, and only edits to files open here: they change the buffer, which is saved as usual.
        const actions = (result ?? [])
          .filter((a): a is CodeAction => "edit" in a && a.edit !== undefined)
          .map((a) => {
            const edits = Object.entries(a.edit!.changes ?? {}).flatMap(([uri, changes]) =>
              changes.map((e) => ({
                resource: monaco.Uri.parse(uri),
                versionId: undefined,
                textEdit: { range: toRange(e.range), text: e.newText },
              })),
            );
            for (const change of a.edit!.documentChanges ?? []) {
              if ("textDocument" in change)
                edits.push(
                  ...change.edits.map((e) => ({
                    resource: monaco.Uri.parse(change.textDocument.uri),
                    versionId: undefined,
                    textEdit: { range: toRange(e.range), text: (e as TextEdit).newText },
                  })),
                );
            }
            return {
              title: a.title,
              kind: a.kind,
              isPreferred: a.isPreferred,
              edit: { edits: edits.filter((e) => monaco.editor.getModel(e.resource)) },
            };
          })
          .filter((a) => a.edit.edits.length > 0);
        return { actions, dispose() {} };
      },
    }),
    L.registerRenameProvider(languages, {
      async provideRenameEdits(model, position, newName) {
        if (!client.session.canWrite) return { edits: [], rejectReason: "Your role in this project is read-only." };
        const path = pathOfUri(model.uri);
        try {
          await client.session.rename({ path, line: position.lineNumber, column: position.column, newName });
          return { edits: [] };
        } catch (error) {
          return { edits: [], rejectReason: error instanceof Error ? error.message : String(error) };
        }
      },
    }),
  ];
  return { dispose: () => registrations.forEach((r) => r.dispose()) };
}
