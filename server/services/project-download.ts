import { once } from "node:events";
import path from "node:path";
import type { Writable } from "node:stream";
import { ZipArchive } from "archiver";
import { openFileStream, WorkspaceError, type Workspace } from "@/server/workspace";
import { RG_BASE_ARGS, streamRipgrep } from "@/server/workspace/ripgrep";

// Downloads: one file as it is, or a folder (the whole project too) as a zip streamed to the
// response while it is built: files are listed by ripgrep and added one at a time, so memory stays
// flat whatever the size.
//
// What a folder's zip holds: what the explorer shows by default and quick open lists. Files that
// .gitignore leaves out (node_modules, build output) and `.git` stay out, except when the folder
// asked for is itself ignored (download `node_modules` and you get it). Symbolic links are not
// followed and not stored, and each listed file is opened beneath the root as a regular file
// (openFileStream), so nothing outside the workspace, and no FIFO, socket or device, can end up
// in a zip, even when a folder is swapped for a link after the listing; empty folders are not
// stored either.

/** The folder `input` as a zip written to `out`; resolves with the number of files once it is all written. */
export async function streamFolderZip(
  workspace: Workspace,
  input: string,
  out: Writable,
  signal: AbortSignal,
): Promise<{ files: number }> {
  const folder = await workspace.resolve(input);
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const failed = new Promise<never>((_, reject) => archive.on("error", reject));
  failed.catch(() => undefined);
  archive.pipe(out);
  const rg = streamRipgrep([...RG_BASE_ARGS, "--files", "--", folder.path === "" ? "." : folder.path], {
    root: workspace.root,
    signal,
  });
  let files = 0;
  for await (const line of rg.lines) {
    const relative = line.toString("utf8").replace(/^\.\//, "");
    // Opened beneath the root one by one: a folder swapped for a link after the listing leads nowhere outside.
    const file = await openFileStream(workspace, relative).catch((error: unknown) =>
      error instanceof WorkspaceError ? null : Promise.reject(error),
    );
    if (!file) continue;
    const name = folder.path === "" ? relative : path.posix.relative(folder.path, relative);
    const added = once(archive, "entry");
    archive.append(file.stream, { name, date: file.mtime, mode: file.mode & 0o777 });
    // The stream holds the file's descriptor: a zip that failed must not keep it open.
    try {
      await Promise.race([added, failed]);
    } catch (error) {
      file.stream.destroy();
      throw error;
    }
    files++;
  }
  if (signal.aborted) {
    archive.abort();
    return { files };
  }
  await Promise.race([archive.finalize(), failed]);
  return { files };
}

/** Whether `input` names a folder (zip) or a file (as is); NOT_FOUND when it is neither. */
export async function downloadKind(workspace: Workspace, input: string): Promise<"folder" | "file"> {
  const info = await workspace.stat(input);
  return info.type === "directory" ? "folder" : "file";
}
