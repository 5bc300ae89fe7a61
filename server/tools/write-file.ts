import { writeFileCall } from "@/lib/tool-call-shapes";
import { withNewErrors } from "./new-errors";
import { defineTool } from "./define-tool";
import { changeSummary, diffFile } from "./diff-display";
import { assertFresh, loadFileIfExists, recordWrite } from "./file-state";
import { ok } from "./result";

const DESCRIPTION = `Writes a whole file, creating it and any missing parent folders.
- To overwrite an existing file you must have read it in this session and it must not have changed since; otherwise read it again first.
- Prefer edit or multi_edit for changes to part of a file.
- The write is atomic: readers see the old content or the new, never half a file. An existing file keeps its line endings, byte-order mark and encoding.`;

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
