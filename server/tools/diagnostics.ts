import { z } from "zod";
import { defineTool } from "./define-tool";
import { asking, languageOf, workspacePath } from "./language-access";
import { formatProblem } from "./new-errors";
import { ok } from "./result";

const MAX_PROBLEMS = 50;

const DESCRIPTION = `Lists the errors and warnings the project's language servers (TypeScript/JavaScript, Python, JSON, CSS, HTML) report.
- With path: that file's problems (the file is checked now if no one had it open).
- Without path: the problems known for every file open in an editor or checked by you in this session; check a file by path to be sure about it.
- At most ${MAX_PROBLEMS} entries, errors first.`;

export const diagnosticsTool = defineTool({
  name: "diagnostics",
  kind: "read",
  description: DESCRIPTION,
  input: z.object({
    path: z
      .string()
      .min(1)
      .optional()
      .describe("A file, relative to the workspace root; omit for the whole workspace."),
  }),
  describe: (input) => (input.path ? `Diagnostics of ${input.path}` : "Workspace diagnostics"),
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const file = input.path ? await workspacePath(ctx, input.path) : undefined;
    const problems = await asking(() => language.problems(file));
    const where = file ?? "the workspace";
    if (problems.length === 0) return ok(`No problems reported for ${where}.`);
    const shown = problems.slice(0, MAX_PROBLEMS);
    // The files a diagnostic names are what the agent reads next.
    ctx.prefetch?.hint(ctx.workspace, [...new Set(shown.map((p) => p.path))]);
    const counts = (["error", "warning"] as const)
      .map((s) => `${problems.filter((p) => p.severity === s).length} ${s}s`)
      .join(", ");
    const more = problems.length > shown.length ? `\n(${problems.length - shown.length} more not shown)` : "";
    return ok(
      `${problems.length} problems in ${where} (${counts}):\n${shown.map(formatProblem).join("\n")}${more}`,
      {
        kind: "table",
        columns: ["Where", "Severity", "Message"],
        rows: shown.map((p) => [`${p.path}:${p.line}:${p.column}`, p.severity, p.message.split("\n")[0]!]),
        ...(more ? { footer: more.trim() } : {}),
      },
      { count: problems.length },
    );
  },
});
