import { chmod, lstat, mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { CheckpointError } from "./checkpoint-errors";
import { SYSTEM_PATH } from "@/server/sandbox/environment";
import {
  GitProcessError,
  runGitProcess,
  type GitCommand,
  type GitProcessOptions,
  type GitResult,
} from "@/server/sandbox/git-process";
import type { SandboxedCommand } from "@/server/sandbox/launcher";

/** The tree with nothing in it; git knows it without it being stored. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const MIN_VERSION = [2, 20] as const;
const IDENTITY = { name: "Tandem checkpoints", email: "checkpoints@tandem.invalid" };

// The store's own config; nothing from the system, the user or the workspace's repo applies.
// autocrlf off and the attributes below keep bytes exact; hooks, gc and signing never run on their own.
const CONFIG = `[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tautocrlf = false
\tsafecrlf = false
\tlogAllRefUpdates = false
\thooksPath = /dev/null
\tfsmonitor = false
\tuntrackedCache = true
\tquotePath = false
[index]
\tversion = 4
[gc]
\tauto = 0
\tautoDetach = false
[commit]
\tgpgSign = false
[advice]
\taddEmbeddedRepo = false
`;
// info/attributes outranks every .gitattributes in the workspace: no eol conversion, no filters.
const ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n";
// .git is skipped by git itself at any depth; .tandem holds the server's own bookkeeping; the last
// pattern is atomicWrite's temp file, there for an instant beside the file it replaces.
const EXCLUDE = ".git\n.tandem/\n.tandem-*.tmp\n";
// What a process that died in the middle of a git call leaves behind.
const LOCK_FILES = ["index.lock", "review-index.lock", "HEAD.lock", "refs/tandem/latest.lock"];
const MARKER = "tandem-checkpoints";
/** The newest checkpoint; every other one is among its ancestors. */
export const LATEST_REF = "refs/tandem/latest";
/**
 * The largest version of a file the store reads back into memory (review, restore). A snapshot
 * stores any file the workspace holds, and what is in a workspace is hostile: a 4 GB file read back
 * whole would take the server down with it.
 */
export const MAX_OBJECT_BYTES = 256 * 1024 * 1024;

export interface GitRunOptions extends Pick<GitProcessOptions, "input" | "okCodes" | "maxStdout"> {
  /** A scratch index instead of the store's own. */
  indexFile?: string;
  env?: Record<string, string>;
  /** The command reads the work tree (add, commit, check-ignore, ls-files): it runs in the project's sandbox. */
  readsWorkTree?: boolean;
}

/**
 * Where the store's git runs. The workspace is hostile: git reads work-tree files by path, and a
 * folder swapped for a link between its lstat and its open would have git read a host file into a
 * checkpoint. So the commands that read the work tree run in the project's sandbox, where such a
 * link leads nowhere, and when the server is root every command runs as the project's user, which
 * then owns the store (it lives in the server's data folder, which the sandbox never shows).
 */
export interface CheckpointRunner {
  /** The user every git call of the store runs as; absent: the server's own. */
  identity?: { uid: number; gid: number };
  /** Makes everything in the store the identity's, its marker file last (after the server wrote files into it). */
  own(storeDir: string): Promise<void>;
  /** `command` in the project's sandbox with the store bound read-write at its own path; `close` once it exited. */
  sandboxed(command: string[], storeDir: string): Promise<{ command: SandboxedCommand; close(): Promise<void> }>;
}

let versionCheck: Promise<string> | undefined;

/** Resolves to the version of the `git` on PATH; rejects with GIT_UNAVAILABLE when missing or too old. */
export function checkGitVersion(): Promise<string> {
  versionCheck ??= runGit(
    { file: "git", args: ["--version"], env: { PATH: SYSTEM_PATH, LANG: "C" }, cwd: "/" },
    ["--version"],
    {},
  ).then(
    ({ stdout }) => {
      const text = stdout.toString("utf8").trim();
      const match = /(\d+)\.(\d+)/.exec(text);
      const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
      if (major < MIN_VERSION[0] || (major === MIN_VERSION[0] && minor < MIN_VERSION[1])) {
        throw new CheckpointError(
          "GIT_UNAVAILABLE",
          `Checkpoints need git ${MIN_VERSION.join(".")} or newer, but the server has '${text}'. Upgrade git on the server.`,
        );
      }
      return text;
    },
    (error: unknown) => {
      versionCheck = undefined;
      throw error instanceof CheckpointError && error.code === "GIT_FAILED"
        ? new CheckpointError(
            "GIT_UNAVAILABLE",
            `Checkpoints need git, but 'git --version' failed: ${error.message}. Install git 2.20 or newer on the server.`,
            { cause: error },
          )
        : error;
    },
  );
  return versionCheck;
}

/**
 * git bound to one checkpoint store: GIT_DIR is the store, the work tree is the workspace, the index
 * is the store's private one, and the environment is built from scratch so that nothing the server
 * inherited (GIT_DIR, a user's config, hooks) can point git at the project's own repository.
 */
export class CheckpointGit {
  readonly indexFile: string;
  private readonly env: Record<string, string>;

  constructor(
    readonly storeDir: string,
    readonly workTree: string,
    private readonly runner?: CheckpointRunner,
    /** The largest file version readObjects reads back. */
    readonly maxObjectBytes = MAX_OBJECT_BYTES,
  ) {
    this.indexFile = path.join(storeDir, "index");
    this.env = {
      PATH: SYSTEM_PATH,
      HOME: storeDir,
      LANG: "C",
      LC_ALL: "C",
      GIT_DIR: storeDir,
      GIT_WORK_TREE: workTree,
      GIT_INDEX_FILE: this.indexFile,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_NO_REPLACE_OBJECTS: "1",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: IDENTITY.name,
      GIT_AUTHOR_EMAIL: IDENTITY.email,
      GIT_COMMITTER_NAME: IDENTITY.name,
      GIT_COMMITTER_EMAIL: IDENTITY.email,
    };
  }

  /** Creates the store on first use (closed to others); on later opens clears locks a crash may have left behind. */
  async init(): Promise<void> {
    await checkGitVersion();
    const marker = path.join(this.storeDir, MARKER);
    const existing = await stat(marker).catch(() => null);
    if (existing) {
      // One process owns a store (see openCheckpointStore); a lock now is a leftover.
      await Promise.all(LOCK_FILES.map((lock) => rm(path.join(this.storeDir, lock), { force: true })));
      await closeToOthers(this.storeDir);
      // A store the server made before its git ran as the project's user is handed over once.
      if (this.runner?.identity && existing.uid !== this.runner.identity.uid) await this.runner.own(this.storeDir);
      return;
    }
    await mkdir(this.storeDir, { recursive: true });
    await closeToOthers(this.storeDir);
    if (this.runner?.identity) await this.runner.own(this.storeDir);
    await this.run(["init", "--quiet"]);
    // Checkpoints are commits on HEAD, so `git commit` records one in a single call.
    await this.run(["symbolic-ref", "HEAD", LATEST_REF]);
    await rm(path.join(this.storeDir, "hooks"), { recursive: true, force: true });
    await writeFile(path.join(this.storeDir, "config"), CONFIG);
    await mkdir(path.join(this.storeDir, "info"), { recursive: true });
    await writeFile(path.join(this.storeDir, "info", "attributes"), ATTRIBUTES);
    await writeFile(path.join(this.storeDir, "info", "exclude"), EXCLUDE);
    await writeFile(
      marker,
      "Checkpoint store of a Tandem workspace. Its work tree is passed in GIT_WORK_TREE on every call.\n",
    );
    if (this.runner?.identity) await this.runner.own(this.storeDir);
  }

  async run(args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
    const env = { ...this.env, ...(options.indexFile ? { GIT_INDEX_FILE: options.indexFile } : {}), ...options.env };
    if (!this.runner) return runGit({ file: "git", args, env, cwd: this.workTree }, args, options);
    // The store and work tree belong to other users than the one git runs as (inside the sandbox,
    // the server's files show as nobody's): git must not refuse them as "dubious".
    const command = ["-c", "safe.directory=*", ...args];
    if (!options.readsWorkTree) {
      return runGit({ file: "git", args: command, env, cwd: this.workTree, ...this.runner.identity }, args, options);
    }
    // The sandbox builds its environment from an allow-list: git's own variables go in through env(1).
    const launch = await this.runner.sandboxed(
      ["env", ...Object.entries(env).map(([name, value]) => `${name}=${value}`), "git", ...command],
      this.storeDir,
    );
    try {
      return await runGit(launch.command, args, options);
    } finally {
      await launch.close();
    }
  }

  /** stdout as text, without the final newline. */
  async text(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
    const { stdout } = await this.run(args, options);
    return stdout.toString("utf8").replace(/\n$/, "");
  }

  /** Sizes of objects named like `<sha>`; null for those that do not exist. */
  async sizes(names: readonly string[]): Promise<(number | null)[]> {
    if (names.length === 0) return [];
    const { stdout } = await this.run(["cat-file", "--batch-check=%(objectsize)"], {
      input: names.map((name) => `${name}\n`).join(""),
    });
    return stdout
      .toString("utf8")
      .split("\n")
      .slice(0, names.length)
      .map((line) => (/^\d+$/.test(line) ? Number(line) : null));
  }

  /**
   * Contents of objects named like `<sha>` or `<commit>:<path>`; null for those that do not exist.
   * Refuses (TOO_LARGE, naming `labels[i]`) when one is larger than maxObjectBytes; git's answer may not
   * exceed what it said the sizes were. `sizes`: theirs, when the caller has them from git already.
   */
  async readObjects(
    names: readonly string[],
    options: { labels?: readonly string[]; sizes?: readonly (number | null)[] } = {},
  ): Promise<(Buffer | null)[]> {
    if (names.length === 0) return [];
    if (names.some((name) => /[\n\r]/.test(name))) {
      throw new CheckpointError("GIT_FAILED", "A file name with a line break cannot be read from a checkpoint.");
    }
    const labels = options.labels ?? names;
    const sizes = options.sizes ?? (await this.sizes(names));
    const large = sizes.findIndex((size) => size !== null && size > this.maxObjectBytes);
    if (large >= 0) throw tooLarge(labels[large]!, sizes[large]!, this.maxObjectBytes);
    // Each answer: "<sha> <type> <size>\n", the bytes, "\n"; or "<name> missing\n".
    const answer = sizes.reduce<number>((sum, size, i) => sum + (size ?? 0) + names[i]!.length + 64, 0);
    const { stdout } = await this.run(["cat-file", "--batch"], {
      input: names.map((name) => `${name}\n`).join(""),
      maxStdout: answer,
    });
    const results: (Buffer | null)[] = [];
    let at = 0;
    for (let i = 0; i < names.length; i++) {
      const eol = stdout.indexOf(0x0a, at);
      const header = stdout.subarray(at, eol).toString("utf8");
      at = eol + 1;
      const size = /^[0-9a-f]{40} \S+ (\d+)$/.exec(header);
      if (!size) {
        results.push(null); // "<name> missing" or "ambiguous"
        continue;
      }
      const length = Number(size[1]);
      results.push(Buffer.from(stdout.subarray(at, at + length)));
      at += length + 1;
    }
    return results;
  }
}

/** The refusal of a file's version larger than the store reads back. */
export function tooLarge(label: string, size: number, maxBytes: number): CheckpointError {
  const mb = (bytes: number) =>
    bytes < 1024 * 1024
      ? `${Math.ceil(bytes / 1024).toLocaleString("en-US")} KB`
      : `${Math.ceil(bytes / (1024 * 1024)).toLocaleString("en-US")} MB`;
  return new CheckpointError(
    "TOO_LARGE",
    `'${label}' is ${mb(size)} in this checkpoint; the checkpoint store reads back files of up to ${mb(maxBytes)}. Copy it back from a backup, or restore the other files one by one.`,
  );
}

function runGit(command: GitCommand, args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  return runGitProcess(command, options).catch((error: unknown) => {
    if (!(error instanceof GitProcessError)) throw error;
    if (error.kind === "missing")
      throw new CheckpointError(
        "GIT_UNAVAILABLE",
        "Checkpoints need git, but no 'git' was found on the server's PATH. Install git 2.20 or newer.",
        { cause: error },
      );
    if (error.kind !== "exit" || !error.result)
      throw new CheckpointError("GIT_FAILED", `Could not run git: ${error.message}`, { cause: error });
    const { code, stderr } = error.result;
    throw new CheckpointError("GIT_FAILED", `git ${args[0]} failed (exit ${code}): ${stderr.trim() || "no message"}`);
  });
}

/**
 * Another project's uid may read nothing of a store: it holds every file of its tree at every turn.
 * git makes its folders under the server's umask (world-readable), so the store's own folder takes
 * every permission from others; a store made before this loses them at its next open. The folder is
 * the server's entry in its own folder, so its path is not a project's to swap.
 */
async function closeToOthers(storeDir: string): Promise<void> {
  const mode = (await lstat(storeDir)).mode & 0o7777;
  if (mode & 0o007) await chmod(storeDir, mode & ~0o007);
}
