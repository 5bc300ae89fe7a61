import { z } from "zod";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";
import { RG_BASE_ARGS, runRipgrep } from "@/server/workspace/ripgrep";

export const GLOB_LIMIT = 100;

const DESCRIPTION = `Finds files by glob pattern, newest first (by modification time).
- Patterns: "**/*.ts", "src/**/*.test.ts", "*.json" (top level of path only), "**/{package,tsconfig}.json".
- Files ignored by .gitignore are left out. At most ${GLOB_LIMIT} paths are listed, with a count of the rest.
- path: the folder to search in (default: the workspace root); patterns are relative to it.`;

/** A glob with no slash is anchored to the search folder, as in a shell (rg would match it at any depth). */
export function anchoredGlob(pattern: string): string {
  const negated = pattern.startsWith("!");
  const body = negated ? pattern.slice(1) : pattern;
  const anchored = body.startsWith("/") || body.startsWith("**/") ? body : `/${body.replace(/^\.\//, "")}`;
  return (negated ? "!" : "") + anchored;
}

export const globTool = defineTool({
  name: "glob",
  kind: "search",
  description: DESCRIPTION,
  input: z.object({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts".'),
    path: z.string().optional().describe("Folder to search in, relative to the workspace root (default: the root)."),
  }),
  describe: (input) => `Find ${input.pattern}${input.path ? ` in ${input.path}` : ""}`,
  async execute(input, ctx) {
    const dir = await ctx.workspace.resolve(input.path ?? "");
    const info = await ctx.workspace.stat(dir.requested).catch(() => null);
    if (!info)
      throw new ToolFailure("NOT_FOUND", `The folder '${dir.requested}' does not exist. List its parent with ls.`);
    if (info.type !== "directory")
      throw new ToolFailure("NOT_A_DIRECTORY", `'${dir.requested}' is a file; give a folder as path.`);
    const files: { name: string; mtime: number }[] = [];
    const rg = await ctx.workspace.inFolder(dir.requested, (folder) =>
      runRipgrep([...RG_BASE_ARGS, "--files", "--glob", anchoredGlob(input.pattern)], {
        root: ctx.workspace.root,
        cwd: folder.cwd,
        signal: ctx.signal,
        // Stat (beneath the folder) as names stream in, while rg is still walking.
        onLine: (name) => files.push({ name, mtime: folder.mtimeOf(name) ?? 0 }),
      }),
    );
    if (rg.exitCode === 2 && files.length === 0) {
      throw new ToolFailure("INVALID_INPUT", `pattern '${input.pattern}' is not a valid glob: ${rg.stderr.trim()}`);
    }
    const prefix = dir.requested === "" ? "" : `${dir.requested}/`;
    const newest = topByMtime(files, GLOB_LIMIT);
    const where = dir.requested === "" ? "the workspace" : `'${dir.requested}'`;
    if (files.length === 0) {
      return ok(
        `No files match '${input.pattern}' in ${where} (files ignored by .gitignore are not searched).`,
        undefined,
        { count: 0 },
      );
    }
    const listed = newest.map((f) => prefix + f.name);
    const rest = files.length - listed.length;
    const note =
      rest > 0 ? `\n[${rest} more files match, not listed. Use a narrower pattern or path to see them.]` : "";
    return ok(
      `${listed.join("\n")}${note}`,
      {
        kind: "table",
        columns: ["Path"],
        rows: listed.map((p) => [p]),
        ...(rest > 0 ? { footer: `${rest} more` } : {}),
      },
      { count: files.length },
    );
  },
});

/** The `limit` newest entries, newest first (a partial selection, not a full sort). */
function topByMtime(files: { name: string; mtime: number }[], limit: number): { name: string; mtime: number }[] {
  if (files.length <= limit * 4)
    return [...files].sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : 1)).slice(0, limit);
  const top: { name: string; mtime: number }[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (const f of files) {
    if (top.length >= limit && f.mtime <= floor) continue;
    top.push(f);
    if (top.length > limit * 2) {
      top.sort((a, b) => b.mtime - a.mtime);
      top.length = limit;
      floor = top[limit - 1]!.mtime;
    }
  }
  return top.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : 1)).slice(0, limit);
}
