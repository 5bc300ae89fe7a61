import { editCall } from "@/lib/tool-call-shapes";
import { withNewErrors } from "./new-errors";
import { defineTool } from "./define-tool";
import { changeSummary, changedLines, diffFile } from "./diff-display";
import { applyEdit } from "./edit-match";
import { assertFresh, editableText, loadFileIfExists, recordWrite } from "./file-state";
import { ToolFailure, ok } from "./result";

const DESCRIPTION = `Replaces exact text in a file you have read (and that has not changed since).
- old_string must match exactly, indentation included, without read_file's line-number prefixes, and occur once (add surrounding lines, or set replace_all).
- An empty old_string creates a new file with new_string as its content.
- Answers with the changed lines, numbered; a failed edit changes nothing.`;

export const editTool = defineTool({
  ...editCall,
  description: DESCRIPTION,
  execute: withNewErrors(
    (input) => [input.path],
    async (input, ctx) => {
      const file = await loadFileIfExists(ctx, input.path);
      if (!file) {
        if (input.old_string !== "") {
          throw new ToolFailure(
            "NOT_FOUND",
            `'${input.path}' does not exist. Check the path (glob or ls can find it), or give an empty old_string to create the file.`,
          );
        }
        const { version } = await ctx.workspace.create(input.path, input.new_string.replace(/\r\n/g, "\n"), {
          createParents: true,
        });
        const resolved = await ctx.workspace.resolve(input.path);
        recordWrite(ctx, resolved.path, version);
        const diff = diffFile(resolved.requested, "", input.new_string, true);
        return ok(
          `Created '${resolved.requested}' ${changeSummary(diff)}.`,
          { kind: "diff", files: [diff] },
          { path: resolved.requested, created: true },
        );
      }
      assertFresh(ctx, file, "edit");
      const { text } = editableText(file, "edit");
      const label = file.resolved.requested;
      let after: string;
      let where = "";
      if (input.old_string === "" && text === "") {
        after = input.new_string.replace(/\r\n/g, "\n");
      } else {
        const outcome = applyEdit(text, input, label);
        if (!outcome.ok) throw new ToolFailure(outcome.code, outcome.message);
        after = outcome.text;
        where =
          outcome.count === 1
            ? ` at line ${outcome.lines[0]}`
            : ` (${outcome.count} occurrences, lines ${outcome.lines.slice(0, 10).join(", ")}${outcome.count > 10 ? ", …" : ""})`;
      }
      const { version } = await ctx.workspace.write(input.path, after, { expectedVersion: file.version });
      recordWrite(ctx, file.resolved.path, version);
      const diff = diffFile(label, text, after, false);
      const shown = changedLines(text, after);
      return ok(
        `Edited '${label}'${where}: ${changeSummary(diff)}.${shown ? `\nThe changed lines now read:\n${shown}` : ""}`,
        { kind: "diff", files: [diff] },
        { path: label },
      );
    },
  ),
});
