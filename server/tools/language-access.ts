import {
  LanguageUnavailable,
  type Place,
  type ProjectLanguage,
  type SymbolEntry,
} from "@/server/language/project-language";
import type { ToolContext } from "./define-tool";
import { ToolFailure } from "./result";

/** The project's language servers, or a failure that tells the model to use grep instead. */
export function languageOf(ctx: ToolContext): ProjectLanguage {
  if (!ctx.language)
    throw new ToolFailure("UNAVAILABLE", "Language servers are not available here. Use grep and read_file instead.");
  return ctx.language;
}

/** Runs a language query; a server's refusal or absence becomes an UNAVAILABLE result the model can act on. */
export async function asking<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolFailure(
      "UNAVAILABLE",
      `${error instanceof LanguageUnavailable ? "" : "The language server could not answer: "}${message}`,
    );
  }
}

/** A workspace path given by the model, as the language servers see it (root-relative). */
export async function workspacePath(ctx: ToolContext, raw: string): Promise<string> {
  return (await ctx.workspace.resolve(raw)).requested;
}

export function formatPlace(p: Pick<Place, "path" | "line" | "column">): string {
  return `${p.path}:${p.line}:${p.column}`;
}

export function formatSymbol(s: SymbolEntry): string {
  return `${s.kind} ${s.container ? `${s.container}.` : ""}${s.name} — ${formatPlace(s)}`;
}

/** Where a symbol named `name` is defined: exact matches first; a clear failure when there are none. */
export async function findSymbol(language: ProjectLanguage, name: string): Promise<SymbolEntry[]> {
  const found = await asking(() => language.workspaceSymbols(name));
  const exact = found.filter((s) => s.name === name || `${s.container}.${s.name}` === name);
  if (exact.length === 0) {
    const near = found.slice(0, 5).map((s) => s.name);
    throw new ToolFailure(
      "NOT_FOUND",
      `No symbol named '${name}' was found.${near.length ? ` Close matches: ${near.join(", ")}.` : ""} Try symbols with a query, or give path, line and column.`,
    );
  }
  return exact;
}

/** A position given either as path+line+column or as a symbol name (its definition). */
export async function positionOf(
  ctx: ToolContext,
  input: { path?: string; line?: number; column?: number; symbol?: string },
): Promise<Array<{ path: string; line: number; column: number }>> {
  const language = languageOf(ctx);
  if (input.path && input.line && input.column)
    return [{ path: await workspacePath(ctx, input.path), line: input.line, column: input.column }];
  if (input.symbol)
    return (await findSymbol(language, input.symbol)).map((s) => ({ path: s.path, line: s.line, column: s.column }));
  throw new ToolFailure("INVALID_INPUT", "Give either path, line and column, or symbol.");
}
