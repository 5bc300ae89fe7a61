import { z } from "zod";
import { defineTool, type ToolContext } from "./define-tool";
import { loadFile } from "./file-state";
import { anchoredGlob } from "./glob";
import { resultFromError, ok } from "./result";
import { RG_BASE_ARGS, runRipgrep } from "@/server/workspace/ripgrep";
import { numberLines } from "./text-window";

export const MAX_FILES = 100;
/** Lines of each file: several files share one result, so each gets a window of its own. */
const LINES_PER_FILE = 2000;

const DESCRIPTION = `Reads several files at once: each comes with a header line, then its numbered lines (at most ${LINES_PER_FILE} lines of each, 2000 characters per line).
- paths: file paths, folders (every file under them), or glob patterns ("src/**/*.ts"). Files ignored by .gitignore are skipped when expanding folders and patterns.
- Binary files are skipped with a note; use read_file for images and PDFs. At most ${MAX_FILES} files per call.`;

const isPattern = (p: string) => /[*?[{]/.test(p);

async function expand(ctx: ToolContext, entries: string[]): Promise<{ files: string[]; notes: string[] }> {
  const files: string[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const add = (p: string) => {
    if (!seen.has(p)) {
      seen.add(p);
      files.push(p);
    }
  };
  for (const entry of entries) {
    if (isPattern(entry)) {
      const rg = await runRipgrep([...RG_BASE_ARGS, "--files", "--glob", anchoredGlob(entry)], {
        root: ctx.workspace.root,
        signal: ctx.signal,
      });
      if (rg.lines.length === 0) notes.push(`No files match '${entry}'.`);
      rg.lines.sort().forEach(add);
      continue;
    }
    const resolved = await ctx.workspace.resolve(entry);
    const info = await ctx.workspace.stat(entry).catch(() => null);
    if (info?.type === "directory") {
      const under = resolved.requested === "" ? "" : `${resolved.requested}/`;
      const rg = await runRipgrep(
        [...RG_BASE_ARGS, "--files", "--", resolved.requested === "" ? "." : resolved.requested],
        { root: ctx.workspace.root, signal: ctx.signal },
      );
      rg.lines
        .map((l) => l.replace(/^\.\//, ""))
        .filter((l) => l.startsWith(under))
        .sort()
        .forEach(add);
    } else {
      add(resolved.requested);
    }
  }
  return { files, notes };
}

export const readManyFilesTool = defineTool({
  name: "read_many_files",
  onDemand: "small-window",
  kind: "read",
  description: DESCRIPTION,
  input: z.object({
    paths: z
      .array(z.string().min(1))
      .min(1)
      .max(200)
      .describe("Files, folders or glob patterns, relative to the workspace root."),
  }),
  describe: (input) =>
    input.paths.length === 1
      ? `Read ${input.paths[0]}`
      : `Read ${input.paths.length} paths (${input.paths.slice(0, 3).join(", ")}${input.paths.length > 3 ? ", …" : ""})`,
  async execute(input, ctx) {
    const { files, notes } = await expand(ctx, input.paths);
    const chosen = files.slice(0, MAX_FILES);
    if (files.length > MAX_FILES)
      notes.push(`${files.length - MAX_FILES} more files matched and were not read; ask for them in another call.`);
    const sections: string[] = [];
    const skipped: string[] = [];
    let read = 0;
    for (const file of chosen) {
      try {
        const loaded = await loadFile(ctx, file);
        if (loaded.decoded.kind === "binary" || /\.(pdf|png|jpe?g|gif|webp|bmp|svg)$/i.test(file)) {
          skipped.push(
            `${file} (binary${loaded.decoded.kind === "binary" && loaded.decoded.mime ? `, ${loaded.decoded.mime}` : ""}; use read_file for images and PDFs)`,
          );
          continue;
        }
        const content =
          loaded.decoded.eol === "\r\n" ? loaded.decoded.content.replace(/\r\n/g, "\n") : loaded.decoded.content;
        const window = numberLines(content, 1, LINES_PER_FILE);
        ctx.reads.recordRead(loaded.resolved.path, loaded.version, `1:${LINES_PER_FILE}`);
        const cut =
          window.end < window.total
            ? `\n[Showing lines 1-${window.end} of ${window.total}; use read_file with offset=${window.end + 1} for more.]`
            : "";
        sections.push(`--- ${loaded.resolved.requested} ---\n${window.total === 0 ? "(empty)" : window.text}${cut}`);
        read++;
      } catch (error) {
        const result = resultFromError(error, ctx.signal);
        if (result.error?.code === "OUTSIDE_WORKSPACE" || result.error?.code === "INVALID_PATH") throw error;
        skipped.push(`${file} ([${result.error?.code}] ${result.error?.message})`);
      }
    }
    if (read === 0 && skipped.length === 0 && notes.length > 0) return ok(notes.join("\n"), undefined, { files: 0 });
    const tail = [...(skipped.length ? [`Skipped:\n${skipped.map((s) => `- ${s}`).join("\n")}`] : []), ...notes];
    const llm = [...sections, ...tail].join("\n\n");
    return ok(
      llm,
      {
        kind: "text",
        text: `Read ${read} file${read === 1 ? "" : "s"}${skipped.length ? `, skipped ${skipped.length}` : ""}`,
      },
      { files: read, skipped: skipped.length },
    );
  },
});
