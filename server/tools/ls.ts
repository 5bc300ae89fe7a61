import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";
import { formatSize } from "./text-window";

const DESCRIPTION = `Lists one folder: each entry with its type, size, modification time and permissions, folders first.
Entries ignored by .gitignore are marked "(ignored)". Use glob to find files by pattern across folders.`;

function permissions(mode: number, type: string): string {
  const kind = type === "directory" ? "d" : type === "symlink" ? "l" : "-";
  const bits = ["r", "w", "x", "r", "w", "x", "r", "w", "x"];
  return kind + bits.map((c, i) => (mode & (1 << (8 - i)) ? c : "-")).join("");
}

export const lsTool = defineTool({
  name: "ls",
  kind: "read",
  description: DESCRIPTION,
  input: z.object({
    path: z.string().optional().describe("Folder to list, relative to the workspace root (default: the root)."),
  }),
  describe: (input) => `List ${input.path && input.path !== "." ? input.path : "the workspace root"}`,
  async execute(input, ctx) {
    const dir = await ctx.workspace.resolve(input.path ?? "");
    const entries = await ctx.workspace.listWithModes(input.path ?? "");
    const rows = entries.map((entry) => {
      const mode = permissions(entry.mode, entry.type);
      const modified = new Date(entry.mtimeMs).toISOString().slice(0, 16).replace("T", " ");
      const size = entry.type === "directory" ? "-" : formatSize(entry.size);
      const name = entry.type === "directory" ? `${entry.name}/` : entry.name;
      return [mode, size, modified, name + (entry.ignored ? " (ignored)" : "")];
    });
    const where = dir.requested === "" ? "the workspace root" : `'${dir.requested}'`;
    if (rows.length === 0) return ok(`${where} is empty.`, undefined, { entries: 0 });
    const width = Math.max(...rows.map((r) => r[1]!.length));
    const text = rows.map((r) => `${r[0]}  ${r[1]!.padStart(width)}  ${r[2]}  ${r[3]}`).join("\n");
    return ok(
      `${where}: ${rows.length} entries\n${text}`,
      { kind: "table", columns: ["Mode", "Size", "Modified (UTC)", "Name"], rows },
      { entries: rows.length },
    );
  },
});
