import { lstat, mkdir, rename, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { startLinkSwapper } from "./temp-dirs";

/**
 * Issue 38's attack on a server entry point: a process of the project trades the folder
 * `root/folder` and a link to `target` in a loop (startLinkSwapper). The link waits in .git, where
 * checkpoints and downloads do not look (a restore would otherwise remove it). `stop()` ends the
 * loop, puts the folder back in its place if the link is there, and resolves with the number of
 * swaps; called again, the same.
 */
export async function swapWithLink(
  root: string,
  folder: string,
  target: string,
  seconds?: number,
): Promise<{ stop(): Promise<number> }> {
  const entry = path.join(root, folder);
  await mkdir(path.join(root, ".git"), { recursive: true });
  const link = path.join(root, ".git", "swap");
  await rm(link, { force: true });
  await symlink(target, link);
  const running = await startLinkSwapper(entry, link, seconds);
  let stopped: Promise<number> | undefined;
  return {
    stop: () =>
      (stopped ??= running.stop().then(async (swaps) => {
        if ((await lstat(entry).catch(() => null))?.isSymbolicLink()) {
          await rename(entry, `${link}.tmp`);
          await rename(link, entry);
          await rename(`${link}.tmp`, link);
        }
        // What is left there: the link, or the old folder when the server replaced the link at `folder` (a restore does).
        await rm(link, { recursive: true, force: true });
        return swaps;
      })),
  };
}
