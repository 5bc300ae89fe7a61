import { runRipgrep, RG_BASE_ARGS } from "./ripgrep";

/** More than a person scrolls through; enough that a name typed in quick open is found in big repos. */
export const FILE_LIST_LIMIT = 50_000;

/**
 * Every file of a workspace that is not ignored (.gitignore and friends, as the agent's searches
 * see them), as sorted workspace paths, for quick open and the knowledge index. `exclude` leaves
 * out folders by name; `truncated` says the list stopped at `limit`.
 */
export async function listWorkspaceFiles(
  root: string,
  options: { limit?: number; exclude?: string[]; signal?: AbortSignal } = {},
): Promise<{ files: string[]; truncated: boolean }> {
  const excluded = (options.exclude ?? []).flatMap((name) => ["--glob", `!${name}`]);
  const run = await runRipgrep([...RG_BASE_ARGS, "--files", ...excluded], {
    root,
    signal: options.signal ?? new AbortController().signal,
    maxLines: options.limit ?? FILE_LIST_LIMIT,
  });
  const files = run.lines.map((line) => line.replace(/^\.\//, "")).filter(Boolean);
  return { files: files.sort(), truncated: run.stopped };
}
