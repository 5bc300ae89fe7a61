import { writeFileCall } from "@/lib/tool-call-shapes";
import { withNewErrors } from "./new-errors";
import { defineTool } from "./define-tool";
import { changeSummary, diffFile } from "./diff-display";
import { assertFresh, loadFileIfExists, recordWrite } from "./file-state";
import { ok } from "./result";

const DESCRIPTION = `Writes a whole file, creating missing parent folders. An existing file must have been read first (and not changed since); for part of a file use edit.`;

export const writeFileTool = defineTool({
  ...writeFileCall,
  description: DESCRIPTION,
  execute: withNewErrors(
    (input) => [input.path],
    async (input, ctx) => {
      const existing = await loadFileIfExists(ctx, input.path);
      let before = "";
      if (existing) {
        assertFresh(ctx, existing, "write_file");
        if (existing.decoded.kind === "text") before = existing.decoded.content.replace(/\r\n/g, "\n");
      }
      const { version } = await ctx.workspace.write(input.path, input.content, {
        expectedVersion: existing ? existing.version : null,
        createParents: true,
      });
      const resolved = existing?.resolved ?? (await ctx.workspace.resolve(input.path));
      recordWrite(ctx, resolved.path, version);
      const diff = diffFile(resolved.requested, before, input.content.replace(/\r\n/g, "\n"), !existing);
      return ok(
        `Wrote '${resolved.requested}': ${changeSummary(diff)}.`,
        { kind: "diff", files: [diff] },
        { path: resolved.requested, created: !existing },
      );
    },
  ),
});
