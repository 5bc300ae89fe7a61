import { multiEditCall } from "@/lib/tool-call-shapes";
import { commitFiles, type FileWrite } from "@/server/workspace/transaction";
import { DEFAULT_FORMAT, encode } from "@/server/workspace/text-codec";
import { withNewErrors } from "./new-errors";
import type { DiffFile, ToolErrorCode } from "@/lib/tool-display";
import { defineTool } from "./define-tool";
import { changeSummary, changedLines, diffFile } from "./diff-display";
import { applyEdit } from "./edit-match";
import { assertFresh, editableText, loadFileIfExists, recordWrite, type LoadedFile } from "./file-state";
import { ToolFailure, failure, ok, resultFromError } from "./result";

const DESCRIPTION = `Applies several exact-text edits, in one or more files, as one transaction.
- Each edit follows the rules of edit (exact, unique old_string unless replace_all; empty old_string creates a missing file).
- Edits to the same file apply in order, each to the result of the previous one.
- Every edit is checked before anything is written: if any fails, no file changes and each failure is reported with its index.`;

interface PlannedFile {
  label: string;
  file: LoadedFile | null;
  before: string;
  text: string;
  format: Parameters<typeof encode>[1];
}

export const multiEditTool = defineTool({
  ...multiEditCall,
  onDemand: "small-window",
  description: DESCRIPTION,
  execute: withNewErrors(
    (input) => input.edits.map((e) => e.path),
    async (input, ctx) => {
      const plans = new Map<string, PlannedFile>();
      const failures: { index: number; code: ToolErrorCode; message: string }[] = [];
      for (const [index, edit] of input.edits.entries()) {
        try {
          const resolved = await ctx.workspace.resolve(edit.path);
          let plan = plans.get(resolved.path);
          if (!plan) {
            const file = await loadFileIfExists(ctx, edit.path);
            if (file) {
              assertFresh(ctx, file, "multi_edit");
              const { text } = editableText(file, "multi_edit");
              const format =
                file.decoded.kind === "text"
                  ? { encoding: file.decoded.encoding, bom: file.decoded.bom, eol: file.decoded.eol }
                  : DEFAULT_FORMAT;
              plan = { label: resolved.requested, file, before: text, text, format };
            } else if (edit.old_string === "") {
              plan = { label: resolved.requested, file: null, before: "", text: "", format: DEFAULT_FORMAT };
            } else {
              throw new ToolFailure(
                "NOT_FOUND",
                `'${edit.path}' does not exist. Check the path, or give an empty old_string to create it.`,
              );
            }
            plans.set(resolved.path, plan);
          }
          if (edit.old_string === "" && plan.text === "") {
            plan.text = edit.new_string.replace(/\r\n/g, "\n");
            continue;
          }
          const outcome = applyEdit(plan.text, edit, plan.label);
          if (!outcome.ok) throw new ToolFailure(outcome.code, outcome.message);
          plan.text = outcome.text;
        } catch (error) {
          const result = resultFromError(error, ctx.signal);
          failures.push({ index, code: result.error!.code, message: result.error!.message });
        }
      }
      if (failures.length > 0) {
        const lines = failures.map(
          (f) => `- edit ${f.index} (${input.edits[f.index]!.path}): [${f.code}] ${f.message}`,
        );
        return failure(
          failures[0]!.code,
          `${failures.length} of ${input.edits.length} edits failed, so no file was changed:\n${lines.join("\n")}\nFix these edits and send the whole set again.`,
          { failedIndexes: failures.map((f) => f.index) },
        );
      }
      const changed = [...plans.entries()].filter(([, plan]) => plan.file === null || plan.text !== plan.before);
      const writes: FileWrite[] = changed.map(([, plan]) => ({
        path: plan.label,
        bytes: encode(plan.text, plan.format),
        expectedVersion: plan.file ? plan.file.version : null,
      }));
      const { versions } = await commitFiles(ctx.workspace, writes);
      const diffs: DiffFile[] = changed.map(([key, plan], i) => {
        recordWrite(ctx, key, versions[i]!);
        return diffFile(plan.label, plan.before, plan.text, plan.file === null);
      });
      const summary = diffs
        .map((d, i) => {
          const [, plan] = changed[i]!;
          const shown = plan.file ? changedLines(plan.before, plan.text, Math.ceil(60 / diffs.length)) : "";
          return `- ${d.path}: ${changeSummary(d)}${shown ? `; the changed lines now read:\n${shown}` : ""}`;
        })
        .join("\n");
      return ok(
        `Applied ${input.edits.length} edits to ${diffs.length} file${diffs.length === 1 ? "" : "s"}:\n${summary}`,
        { kind: "diff", files: diffs },
        { paths: diffs.map((d) => d.path) },
      );
    },
  ),
});
