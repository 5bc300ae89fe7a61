import { z } from "zod";
import { pathMatches } from "@/lib/glob-match";

// The language-server socket carries LSP's JSON-RPC messages, one per text frame, between an
// editor and its project's shared server (server/language/hub.ts).

export const LANGUAGE_WS_PATH = "/api/language/ws";

/** Big enough for a whole large source file in one didOpen. */
export const MAX_LANGUAGE_FRAME_BYTES = 8 << 20;

const id = z.union([z.number().int(), z.string().max(100)]);

/** The shape of a JSON-RPC 2.0 request, notification or response; params stay opaque to the socket. */
export const jsonRpcMessageSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id, method: z.string().min(1).max(200), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal("2.0"), method: z.string().min(1).max(200), params: z.unknown().optional() }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: id.nullable(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  }),
]);

/** `tree`: a session's worktree (lib/trees.ts), whose files get language servers of their own; absent: the main tree. */
export function languageSocketUrl(
  location: { protocol: string; host: string },
  projectId: string,
  server: string,
  tree?: string,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ projectId, server, ...(tree ? { tree } : {}) });
  return `${scheme}//${location.host}${LANGUAGE_WS_PATH}?${query}`;
}

/** Close codes the editor reacts to. */
export const LanguageCloseCode = { protocolError: 4400 } as const;

/**
 * Which server (server/language/registry.ts) answers for each of Monaco's language ids. A new
 * language is an entry in the registry and one here.
 */
export const SERVER_FOR_EDITOR_LANGUAGE: Readonly<Record<string, string>> = {
  typescript: "typescript",
  javascript: "typescript",
  python: "python",
  json: "json",
  css: "css",
  scss: "css",
  less: "css",
  html: "html",
};

/** A server configuration adds (lib/language-plugins.ts), as the editor knows it: the files it serves and their language id. */
export type ConfiguredLanguageServer = { id: string; files: string[]; languageId: string };

/**
 * The server of a workspace file open in the editor, and the language id it is opened with: a
 * configured server takes the files its globs name first (as server/language/registry.ts decides
 * for the agent), then the built-in server of Monaco's language.
 */
export function editorServerOf(
  path: string,
  editorLanguage: string,
  configured: readonly ConfiguredLanguageServer[],
): { server: string; languageId: string } | undefined {
  const own = configured.find((s) => s.files.some((glob) => pathMatches(glob, path)));
  if (own) return { server: own.id, languageId: own.languageId };
  const server = SERVER_FOR_EDITOR_LANGUAGE[editorLanguage];
  return server ? { server, languageId: lspLanguageId(path, editorLanguage) } : undefined;
}

/** A configured glob as Monaco's language selectors match it: against `/<workspace path>`. */
export function editorPattern(glob: string): string {
  return glob.includes("/") ? `/${glob}` : `**/${glob}`;
}

/** The LSP language id of a file: Monaco calls .tsx "typescript", the server must know it is TSX. */
export function lspLanguageId(path: string, editorLanguage: string): string {
  if (path.endsWith(".tsx")) return "typescriptreact";
  if (path.endsWith(".jsx")) return "javascriptreact";
  return editorLanguage;
}

export type ProblemSeverity = "error" | "warning" | "info" | "hint";
/** One diagnostic as the Problems panel shows it; `path` is the workspace path. */
export type EditorProblem = {
  path: string;
  line: number;
  column: number;
  severity: ProblemSeverity;
  message: string;
  source?: string;
  code?: string;
};

/** LSP's SymbolKind names, 1-based as the protocol numbers them: the browser and the agent's tools show the same words. */
const SYMBOL_KINDS = [
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];

export function symbolKindName(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? "symbol";
}
