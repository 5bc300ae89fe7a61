import * as monaco from "@/components/editor/monaco";
import type { MessageConnection } from "vscode-jsonrpc/browser";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import {
  type ConfiguredLanguageServer,
  editorPattern,
  editorServerOf,
  type EditorProblem,
  type ProblemSeverity,
  SERVER_FOR_EDITOR_LANGUAGE,
  symbolKindName,
} from "@/lib/language-protocol";
import type { LanguageSession } from "@/components/editor/language/language-session";
import { pathOfUri } from "@/components/editor/language/peek-models";
import { registerProviders, type LanguageClient } from "@/components/editor/language/providers";
import { ServerConnection } from "@/components/editor/language/server-connection";

// A thin LSP client for the plain monaco-editor the IDE loads locally. monaco-languageclient 10
// would replace that editor with @codingame/monaco-vscode-api (a VS Code workbench build), and
// the experimental client inside monaco-editor 0.57 (monaco.lsp) sends every model to one server,
// lower-cases URIs and only pulls diagnostics; so this client keeps documents in sync, turns
// diagnostics into markers and problems, and registers Monaco's providers (providers.ts).
// Models are `file:///<workspace path>`; the socket maps them to the server's paths.

export const MARKER_OWNER = "language-server";

const SEVERITY: Record<number, ProblemSeverity> = { 1: "error", 2: "warning", 3: "info", 4: "hint" };
const MARKER_SEVERITY: Record<ProblemSeverity, monaco.MarkerSeverity> = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  info: monaco.MarkerSeverity.Info,
  hint: monaco.MarkerSeverity.Hint,
};

let installed: { session: LanguageSession; dispose(): void } | null = null;

/**
 * Connects the editor to the project's language servers, the built-in ones and those its
 * configuration adds (asked first: they take the files they name); once per IDE page (a new
 * project replaces it).
 */
export function installLanguageClient(session: LanguageSession): void {
  if (installed?.session === session) return;
  installed?.dispose();
  const disposables: monaco.IDisposable[] = [];
  let disposed = false;
  installed = {
    session,
    dispose() {
      disposed = true;
      for (const d of disposables) d.dispose();
      session.searchSymbols = null;
    },
  };
  void session
    .configuredServers()
    .catch(() => [])
    .then((configured) => {
      if (!disposed) connect(session, configured, disposables);
    });
}

function connect(
  session: LanguageSession,
  configured: readonly ConfiguredLanguageServer[],
  disposables: monaco.IDisposable[],
): void {
  const connections = new Map<string, ServerConnection>();
  const versions = new WeakMap<monaco.editor.ITextModel, number>();
  disposables.push({ dispose: () => connections.forEach((c) => c.close()) });

  const serverOf = (model: monaco.editor.ITextModel) =>
    model.uri.scheme === "file" ? editorServerOf(pathOfUri(model.uri), model.getLanguageId(), configured) : undefined;

  const open = (connection: MessageConnection, model: monaco.editor.ITextModel) => {
    const version = (versions.get(model) ?? 0) + 1;
    versions.set(model, version);
    void connection.sendNotification("textDocument/didOpen", {
      textDocument: {
        uri: model.uri.toString(),
        languageId: serverOf(model)!.languageId,
        version,
        text: model.getValue(),
      },
    });
  };

  const connection = (server: string) => {
    let existing = connections.get(server);
    if (existing) return existing;
    existing = new ServerConnection(session.projectId, session.tree, server, {
      // (Re)opened: hand over every document of this server's languages.
      onOpen: (conn) => {
        for (const model of monaco.editor.getModels()) if (serverOf(model)?.server === server) open(conn, model);
      },
      onDiagnostics: (params) => showDiagnostics(session, params),
    });
    connections.set(server, existing);
    return existing;
  };

  const connectionFor = (model: monaco.editor.ITextModel) => {
    const server = serverOf(model)?.server;
    return server ? connection(server) : null;
  };

  const track = (model: monaco.editor.ITextModel) => {
    const conn = connectionFor(model);
    if (!conn) return;
    const live = conn.current();
    if (live) open(live, model);
    else void conn.get().catch(() => undefined); // onOpen opens it
    const changes = model.onDidChangeContent(() => {
      const version = (versions.get(model) ?? 0) + 1;
      versions.set(model, version);
      void conn.current()?.sendNotification("textDocument/didChange", {
        textDocument: { uri: model.uri.toString(), version },
        contentChanges: [{ text: model.getValue() }],
      });
    });
    model.onWillDispose(() => {
      changes.dispose();
      void conn.current()?.sendNotification("textDocument/didClose", { textDocument: { uri: model.uri.toString() } });
      // The Problems list keeps what the server reports for a closed file (most clear it on didClose).
      monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
    });
  };

  // The language servers check files with the project's own settings: Monaco's built-in JSON,
  // CSS and HTML services would report the same errors a second time, and wrongly (they know
  // neither tsconfig.json nor node_modules). They keep only colouring and folding. (Monaco's
  // TypeScript service is not loaded at all: components/editor/monaco.ts.)
  monaco.json.jsonDefaults.setModeConfiguration({
    tokens: true,
    colors: true,
    foldingRanges: true,
    selectionRanges: true,
  });
  monaco.css.cssDefaults.setModeConfiguration({ colors: true, foldingRanges: true, selectionRanges: true });
  monaco.html.htmlDefaults.setModeConfiguration({ colors: true, foldingRanges: true, selectionRanges: true });

  const client: LanguageClient = { connectionFor, connection, serverOf, session };
  // Monaco asks the providers for the built-in servers' languages and for the configured servers' files.
  const selector: monaco.languages.LanguageSelector = [
    ...Object.keys(SERVER_FOR_EDITOR_LANGUAGE),
    ...configured.flatMap((s) => s.files.map((glob) => ({ scheme: "file", pattern: editorPattern(glob) }))),
  ];
  disposables.push(registerProviders(client, selector));
  disposables.push(monaco.editor.onDidCreateModel(track));
  for (const model of monaco.editor.getModels()) track(model);
  session.searchSymbols = (query) => searchWorkspaceSymbols(client, query);
}

// LSP 3.18 lets a diagnostic's message be markup; Monaco's markers and the Problems panel take text.
const messageText = (d: Diagnostic) => (typeof d.message === "string" ? d.message : d.message.value);

function showDiagnostics(session: LanguageSession, params: PublishDiagnosticsParams) {
  const path = pathOfUri(params.uri);
  const problems: EditorProblem[] = params.diagnostics.map((d: Diagnostic) => ({
    path,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: SEVERITY[d.severity ?? 1] ?? "error",
    message: messageText(d),
    ...(d.source ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: String(d.code) } : {}),
  }));
  session.setProblems(path, problems);
  const model = monaco.editor.getModel(monaco.Uri.parse(params.uri));
  if (!model) return;
  monaco.editor.setModelMarkers(
    model,
    MARKER_OWNER,
    params.diagnostics.map((d, i) => ({
      severity: MARKER_SEVERITY[problems[i]!.severity],
      message: messageText(d),
      source: d.source,
      code: d.code !== undefined ? String(d.code) : undefined,
      startLineNumber: d.range.start.line + 1,
      startColumn: d.range.start.character + 1,
      endLineNumber: d.range.end.line + 1,
      endColumn: d.range.end.character + 1,
      tags: d.tags?.map((tag) => (tag === 1 ? monaco.MarkerTag.Unnecessary : monaco.MarkerTag.Deprecated)),
    })),
  );
}

/** The built-in servers that answer no workspace/symbol; the others are asked, configured ones too. */
const WITHOUT_WORKSPACE_SYMBOLS = new Set(["json", "css", "html"]);

async function searchWorkspaceSymbols(client: LanguageClient, query: string) {
  const servers = new Set(
    monaco.editor
      .getModels()
      .map((m) => client.serverOf(m)?.server)
      .filter((s) => s !== undefined),
  );
  servers.add("typescript");
  const results = await Promise.all(
    [...servers]
      .filter((s) => !WITHOUT_WORKSPACE_SYMBOLS.has(s))
      .map(async (server) => {
        const connection = await client
          .connection(server)
          .get()
          .catch(() => null);
        const found = (await connection?.sendRequest("workspace/symbol", { query }).catch(() => null)) as
          | {
              name: string;
              kind: number;
              containerName?: string;
              location: { uri: string; range?: { start: { line: number; character: number } } };
            }[]
          | null;
        return (found ?? [])
          .filter(
            (s) =>
              s.location.range && s.location.uri.startsWith("file:///") && !s.location.uri.includes("/node_modules/"),
          )
          .map((s) => ({
            name: s.name,
            kind: symbolKindName(s.kind),
            ...(s.containerName ? { container: s.containerName } : {}),
            path: pathOfUri(s.location.uri),
            line: s.location.range!.start.line + 1,
            column: s.location.range!.start.character + 1,
          }));
      }),
  );
  return results.flat().slice(0, 200);
}
