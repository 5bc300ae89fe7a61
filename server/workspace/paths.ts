import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";

/**
 * A path checked lexically and by real path: for refusals with a clear message and for the paths
 * a client and the read tracker see. Its strings are never used to touch the disk (a link swapped
 * in after the check would redirect them): files are opened beneath the root with `requested`
 * (beneath.ts). boundary.test.ts keeps `absolute` and `entry` inside server/workspace.
 */
export interface ResolvedPath {
  /** Real absolute path, symlinks followed, at the time of the check. */
  absolute: string;
  /** `absolute` relative to the root, POSIX separators; "" is the root. */
  path: string;
  /** Absolute location of the entry itself, last component not followed, at the time of the check. */
  entry: string;
  /** The path as asked, normalized and root-relative (POSIX): what the client sees in its tree. */
  requested: string;
}

const MAX_LINK_HOPS = 40;

export function toPosix(relative: string): string {
  return path.sep === "/" ? relative : relative.split(path.sep).join("/");
}

/** Containment by path.relative, so `/ws/p-evil` is never taken for a child of `/ws/p`. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function outside(input: string, why: string): WorkspaceError {
  return new WorkspaceError(
    "OUTSIDE_WORKSPACE",
    `'${input}' ${why}. Only files inside the workspace can be used; give a path relative to the workspace root, e.g. 'src/index.ts'.`,
  );
}

/** Root-relative form of what the caller asked for, before any symlink is looked at. */
function lexicalRelative(root: string, aliases: readonly string[], input: string): string {
  if (input.includes("\0")) {
    throw new WorkspaceError("INVALID_PATH", "The path contains a NUL byte. Send the file name as plain text.");
  }
  if (input.startsWith("~")) {
    throw new WorkspaceError(
      "INVALID_PATH",
      `'${input}' starts with '~', which would mean a home folder; home folders are outside the workspace. Use a path relative to the workspace root, or './${input}' for a file whose name starts with '~'.`,
    );
  }
  if (path.isAbsolute(input)) {
    const normalized = path.normalize(input);
    for (const base of [root, ...aliases]) {
      if (isInside(base, normalized)) return path.relative(base, normalized);
    }
    throw outside(input, "is an absolute path outside the workspace");
  }
  const rel = path.normalize(input === "" ? "." : input);
  if (rel === ".." || rel.startsWith(`..${path.sep}`)) throw outside(input, "climbs out of the workspace with '..'");
  return rel === "." ? "" : rel.replace(/[\\/]+$/, "");
}

/** fs.realpath for paths that may not exist yet: the deepest existing ancestor is resolved, the rest appended. */
async function realpathDeep(target: string, hops: number, input: string): Promise<string> {
  if (hops > MAX_LINK_HOPS) {
    throw new WorkspaceError(
      "INVALID_PATH",
      `'${input}' goes through too many symbolic links (a loop?). Use the real path of the file.`,
    );
  }
  try {
    return await realpath(target);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP") {
      throw new WorkspaceError(
        "INVALID_PATH",
        `'${input}' goes through a symbolic link loop. Use the real path of the file.`,
      );
    }
    if (code !== "ENOENT" && code !== "ENOTDIR") throw fromFsError(error, input);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  const realParent = await realpathDeep(parent, hops, input);
  const here = path.join(realParent, path.basename(target));
  const stats = await lstat(here).catch(() => null);
  if (stats?.isSymbolicLink()) {
    // A dangling link: where it would create a file is what counts.
    const link = await readlink(here);
    return realpathDeep(path.resolve(realParent, link), hops + 1, input);
  }
  return here;
}

/**
 * Resolves `input` (root-relative, or absolute inside the root) by real path and refuses anything
 * that ends up outside `root`: `..`, foreign absolute paths, symlinks leading out, `~`, NUL bytes.
 * `root` must already be a real path; `aliases` are other spellings of it (the path before realpath).
 */
export async function resolveInside(root: string, aliases: readonly string[], input: string): Promise<ResolvedPath> {
  const rel = lexicalRelative(root, aliases, input);
  const requested = toPosix(rel);
  if (rel === "") return { absolute: root, path: "", entry: root, requested };

  const lexical = path.join(root, rel);
  const realParent = await realpathDeep(path.dirname(lexical), 0, input);
  if (!isInside(root, realParent)) throw outside(input, "leads outside the workspace through a symbolic link");
  const entry = path.join(realParent, path.basename(lexical));
  const absolute = await realpathDeep(entry, 0, input);
  if (!isInside(root, absolute)) throw outside(input, "is a symbolic link that leads outside the workspace");
  return { absolute, path: toPosix(path.relative(root, absolute)), entry, requested };
}
