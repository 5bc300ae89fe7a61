import { runRipgrep, RG_BASE_ARGS } from "@/server/tools/ripgrep";

/** More than a person scrolls through; enough that a name typed in quick open is found in big repos. */
export const FILE_LIST_LIMIT = 50_000;

/**
 * Every file of a workspace that is not ignored (.gitignore and friends, as the agent's searches
 * see them), sorted, for quick open. `truncated` says the list stopped at `limit`.
 */
export async function listWorkspaceFiles(root: string, limit = FILE_LIST_LIMIT): Promise<{ files: string[]; truncated: boolean }> {
  const run = await runRipgrep([...RG_BASE_ARGS, "--files"], { cwd: root, signal: AbortSignal.timeout(10_000), maxLines: limit });
  const files = run.lines.filter(Boolean).map((line) => (line.startsWith("./") ? line.slice(2) : line));
  return { files: files.sort(), truncated: run.stopped };
}
