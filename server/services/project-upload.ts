import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Transform, type Readable } from "node:stream";
import busboy from "busboy";
import {
  freeName,
  receiveFile,
  TooLargeError,
  WorkspaceError,
  type OnExists,
  type Workspace,
} from "@/server/workspace";
import { importZip, ZipRefusedError } from "@/server/workspace/zip-import";
import type { GitRepository } from "@/server/git/repository";
import { mapLimit } from "@/lib/map-limit";

// Uploads into a workspace folder: a multipart stream (busboy) of files, each preceded by a
// `path` field with its path relative to the target folder (folders dropped from the desktop keep
// their structure). Each file streams to disk as it arrives; the request's total is capped while
// streaming. Paths are checked twice: here in words (no `..`, nothing absolute), and by the
// workspace's real-path containment (no way out through a symbolic link).

export type UploadLimits = { maxBytes: number; maxFiles: number };
export type UploadOptions = {
  dir: string;
  onExists: OnExists;
  unzip: boolean;
  limits: UploadLimits;
  /** The workspace's repository: files it records as executable get their executable bit back. */
  git?: GitRepository;
};
export type UploadResult = { files: { path: string; size: number }[]; errors: { path: string; message: string }[] };

export class UploadRefusedError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 507,
  ) {
    super(message);
  }
}

/** A path as the browser sent it, refused unless it is plainly relative and stays below the folder. */
export function checkUploadPath(relative: string): string {
  if (!relative || relative.length > 4096 || relative.includes("\0") || relative.includes("\\")) {
    throw new UploadRefusedError(`'${relative}' is not a file path that can be uploaded.`, 400);
  }
  if (relative.startsWith("/") || /^[A-Za-z]:/.test(relative))
    throw new UploadRefusedError(
      `'${relative}' is an absolute path; uploads name files relative to the folder they go to.`,
      400,
    );
  const segments = relative.split("/");
  if (segments.some((s) => s === ".." || s === "." || s === ""))
    throw new UploadRefusedError(
      `'${relative}' climbs out of the folder or has an empty part; uploads stay inside the folder they go to.`,
      400,
    );
  return relative;
}

export async function receiveUpload(
  workspace: Workspace,
  req: IncomingMessage,
  options: UploadOptions,
): Promise<UploadResult> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > options.limits.maxBytes + 1024 * 1024)
    throw new UploadRefusedError(tooLarge(options.limits.maxBytes), 413);
  const result: UploadResult = { files: [], errors: [] };
  // With keep-both, an uploaded folder whose name is taken gets a free one ("src (1)"), the same for all its files.
  const renamedTops = new Map<string, string>();
  let used = 0;
  let nextPath: string | null = null;
  let chain = Promise.resolve();

  // Files arrive one after another; each is written before the next is read. A refusal (a bad
  // path, over the limit, a bad zip) ends the whole upload at once, without reading the rest.
  const take = async (relativeInput: string, stream: Readable) => {
    let relative = relativeInput;
    try {
      relative = checkUploadPath(relativeInput);
      if (options.unzip && /\.zip$/i.test(relative))
        return await unpack(workspace, stream, options, result, options.limits.maxBytes - used, (n) => (used += n));
      const segments = relative.split("/");
      if (options.onExists === "keep-both" && segments.length > 1) {
        let top = renamedTops.get(segments[0]!);
        if (top === undefined) {
          top = await freeName(workspace, options.dir, segments[0]!);
          if (top !== segments[0]) await workspace.mkdir(join(options.dir, top));
          renamedTops.set(segments[0]!, top);
        }
        segments[0] = top;
      }
      const written = await receiveFile(workspace, join(options.dir, segments.join("/")), stream, {
        onExists: options.onExists,
        maxBytes: options.limits.maxBytes - used,
      });
      used += written.size;
      result.files.push(written);
    } catch (error) {
      if (error instanceof TooLargeError) throw new UploadRefusedError(tooLarge(options.limits.maxBytes), 413);
      if (error instanceof ZipRefusedError) throw new UploadRefusedError(error.message, 400);
      if (!(error instanceof WorkspaceError)) throw error;
      // Past the disk budget no later file fits either: the whole upload ends here.
      if (error.code === "DISK_FULL") throw new UploadRefusedError(error.message, 507);
      stream.resume();
      result.errors.push({ path: relative, message: error.message });
    }
  };

  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: options.limits.maxFiles, fields: options.limits.maxFiles + 10, fieldSize: 8192 },
      });
    } catch (error) {
      return reject(new UploadRefusedError(`Send the files as multipart/form-data: ${(error as Error).message}`, 400));
    }
    const fail = (error: unknown) => {
      req.unpipe(parser);
      reject(error);
    };
    parser.on("field", (name, value) => {
      if (name === "path") nextPath = value;
    });
    parser.on("file", (_name, stream, info) => {
      const relative = nextPath ?? info.filename ?? "";
      nextPath = null;
      chain = chain.then(() => take(relative, stream));
      chain.catch(fail);
    });
    parser.on("filesLimit", () =>
      fail(new UploadRefusedError(`Upload at most ${options.limits.maxFiles} files at a time.`, 413)),
    );
    parser.on("error", (error) =>
      fail(new UploadRefusedError(`The upload was cut off or malformed: ${(error as Error).message}`, 400)),
    );
    parser.on("close", () => void chain.then(resolve, fail));
    req.on("aborted", () => fail(new UploadRefusedError("The upload was cancelled.", 400)));
    req.pipe(parser);
  });
  if (options.git && result.files.length) await restoreExecutables(workspace, options.git, result.files);
  return result;
}

/**
 * A browser sends no file modes, so an uploaded script (or a whole repository uploaded with its
 * .git) arrives without its executable bit, and git shows every such file changed. The files the
 * index records as executable get the bit back: those just uploaded, or all of them when the
 * index itself was (a repository uploaded whole). Nothing else is made executable.
 */
async function restoreExecutables(workspace: Workspace, git: GitRepository, written: { path: string }[]) {
  if (!(await git.isRepository())) return;
  const paths = new Set(written.map((file) => file.path));
  const recorded = await git.executablePaths().catch(() => []);
  const targets = paths.has(".git/index") ? recorded : recorded.filter((p) => paths.has(p));
  await mapLimit(targets, 16, (p) => workspace.makeExecutable(p).catch(() => false));
}

/** A zip is kept in the server's temp folder (yauzl reads its directory at the end first), then unpacked. */
async function unpack(
  workspace: Workspace,
  stream: Readable,
  options: UploadOptions,
  result: UploadResult,
  left: number,
  count: (n: number) => void,
) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "tandem-zip-"));
  try {
    const zipPath = path.join(dir, "upload.zip");
    let size = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > left ? new TooLargeError("over the limit") : null, chunk);
      },
    });
    await pipeline(stream, limit, createWriteStream(zipPath));
    count(size);
    const { files } = await importZip(workspace, zipPath, {
      dir: options.dir,
      onExists: options.onExists,
      stripRoot: true,
      limits: { maxBytes: options.limits.maxBytes, maxEntries: options.limits.maxFiles },
    });
    result.files.push(...files);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
const tooLarge = (max: number) =>
  `The upload is over the limit of ${Math.round(max / 1024 / 1024)} MB. Upload fewer or smaller files (an admin sets the limit with TANDEM_UPLOAD_MAX_MB).`;
