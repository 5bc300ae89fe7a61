import type { InitializeResult } from "vscode-languageserver-protocol";

// What the hub tells a language server it can do as its one client, and what it tells each editor
// behind it in turn.

/** A setting the server asks for by section ("python.analysis"), from the registry's settings. */
export function settingAt(settings: Record<string, unknown>, section: string | undefined): unknown {
  if (!section) return settings;
  let value: unknown = settings;
  for (const key of section.split("."))
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value ?? null;
}

/** Clients send whole texts (the hub keeps one copy per document), and never register watchers themselves. */
export function forClients(result: InitializeResult): InitializeResult {
  return {
    ...result,
    capabilities: {
      ...result.capabilities,
      textDocumentSync: { openClose: true, change: 1, save: { includeText: false } },
    },
  };
}

export const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: true, tagSupport: { valueSet: [1, 2] } },
    hover: { contentFormat: ["markdown", "plaintext"] },
    completion: {
      completionItem: {
        snippetSupport: true,
        documentationFormat: ["markdown", "plaintext"],
        insertReplaceSupport: false,
        resolveSupport: { properties: ["documentation", "detail"] },
      },
    },
    signatureHelp: {
      signatureInformation: {
        documentationFormat: ["markdown", "plaintext"],
        parameterInformation: { labelOffsetSupport: true },
      },
    },
    definition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: true },
    formatting: {},
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: { valueSet: ["", "quickfix", "refactor", "source", "source.organizeImports"] },
      },
    },
  },
};
