import type { Problem } from "@/server/language/project-language";
import type { ToolContext, ToolResult } from "./define-tool";

/** What the model and the tool card get at most: the first errors say enough to go and look. */
export const MAX_NEW_ERRORS = 10;

export function formatProblem(p: Problem): string {
  return `${p.path}:${p.line}:${p.column} ${p.severity}${p.code !== undefined ? ` [${p.source ? `${p.source} ` : ""}${p.code}]` : ""}: ${p.message.split("\n")[0]}`;
}

/**
 * Wraps a file-changing tool's execute: before the change it notes the errors the language servers
 * report in the files it is about to touch, after it lists only the errors the change introduced
 * (in the model's text and in the diff card). Without language servers, or when they fail, the
 * tool's result is returned as it is: a missing report must never fail an edit.
 */
export function withNewErrors<I>(
  pathsOf: (input: I) => string[],
  execute: (input: I, ctx: ToolContext) => Promise<ToolResult>,
) {
  return async (input: I, ctx: ToolContext): Promise<ToolResult> => {
    const language = ctx.language;
    if (!language) return execute(input, ctx);
    const paths: string[] = [];
    for (const raw of new Set(pathsOf(input))) {
      const resolved = await ctx.workspace.resolve(raw).catch(() => null);
      if (resolved && (await language.covers(resolved.requested))) paths.push(resolved.requested);
    }
    const before = paths.length ? await language.errorsBefore(paths).catch(() => null) : null;
    const result = await execute(input, ctx);
    if (!before || result.error) return result;
    const introduced = await language.newErrors(before).catch(() => null);
    if (!introduced || introduced.length === 0) return result;
    const shown = introduced.slice(0, MAX_NEW_ERRORS);
    const more = introduced.length > shown.length ? `\n(and ${introduced.length - shown.length} more)` : "";
    const note = `\n\nThe change introduced ${introduced.length} new error${introduced.length === 1 ? "" : "s"}:\n${shown.map(formatProblem).join("\n")}${more}`;
    const llm =
      typeof result.llm === "string"
        ? result.llm + note
        : [...result.llm, { type: "text" as const, text: note.trimStart() }];
    const display = result.display.kind === "diff" ? { ...result.display, problems: shown } : result.display;
    return { ...result, llm, display, meta: { ...result.meta, newErrors: introduced.length } };
  };
}
