import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The server runs as root and a workspace is hostile: a path into it that is checked and then used
// again as a string can be swapped for a link to anywhere in between. So the server touches
// workspace files only through server/workspace/beneath.ts (openat2 beneath the root) and what is
// built on it (Workspace, atomicWriteAt, transactions). This check fails when code in server/
// reaches for the file system outside that mechanism:
// - importing node:fs (any form) from a file not on the list below, each entry with why it may;
// - using a ResolvedPath's `.absolute` or `.entry` (strings that lead into the workspace), or
//   calling resolveInside, outside the files that define them.
// An entry that no longer imports node:fs must leave the list, so the list stays exact.

const SERVER = path.resolve(import.meta.dirname, "..");

/** Files allowed to import node:fs, and why. */
const RAW_FS_ALLOWED: Record<string, string> = {
  // The mechanism itself.
  "workspace/beneath.ts": "the primitive: openat2 beneath the root, stat and readdir",
  "workspace/beneath-entries.ts": "/proc/self/fd entry operations on folders opened by beneath.ts",
  "workspace/beneath-files.ts": "regular files opened beneath the root by beneath.ts: read, tail, open for write",
  "workspace/paths.ts":
    "lexical resolution for messages and the path a client sees (realpath, lstat, readlink); opens nothing",
  "workspace/save-text.ts": "the Stats type only",
  "workspace/shell-process.ts": "createWriteStream over a descriptor from beneath-files.ts openForWrite",
  "workspace/receive.ts": "createReadStream over a descriptor from beneath.ts openRegularAt (downloads)",
  "workspace/checkpoint-apply.ts": "rmdir and symlink on /proc/self/fd entries of folders opened by beneath.ts",
  "workspace/checkpoint-review.ts": "readlink on a /proc/self/fd entry of a folder opened by beneath.ts",
  "workspace/checkpoint-capture.ts": "whether the checkpoint store's index exists (server data folder)",
  "services/project-upload.ts": "an uploaded zip's copy in the server's temp folder",
  "services/project-files.ts":
    "creates workspace folders under the data folder; copies an admin-allowed folder into a new, empty workspace",
  "sandbox/disk-budget.ts": "/proc, to find a project's processes",
  "preview/preview-front.ts": "closeSync of a socket descriptor the native front hands back, when Node cannot hold it",
  // Server-owned places, not a workspace's files.
  "workspace/checkpoints.ts": "the checkpoint store under the server's data folder",
  "workspace/checkpoint-git.ts": "the checkpoint store's git folder under the server's data folder",
  "services/checkpoints.ts":
    "removes a project's checkpoint store, and hands it to the project's user (server data folder)",
  "auth/secret.ts": "the server's own secret file",
  "live-docs/unsaved-journal.ts": "live documents' unsaved typing under the server's data folder, by hashed path",
  "db/embedded.ts": "the embedded database's files",
  "db/migrate.ts": "migration files shipped with the server",
  "db/schema-shape/prisma-dmmf.ts": "the Prisma schema shipped with the server",
  "eval/tasks.ts": "evaluation task files shipped with the server",
  "eval/solutions.ts": "evaluation tasks' solutions shipped with the server",
  "eval/scaffold.ts": "builds a task's repository in a folder the eval creates (the server's TypeScript copied in)",
  "eval/grade.ts": "reads a task's shipped check and original files; the workspace only through Workspace",
  "eval/record.ts":
    "the task's original files and the run's records in the eval's output folder; the workspace only through Workspace",
  "eval/sandbox-run.ts": "an empty temp folder for the sandbox's pre-flight check",
  "eval/fingerprint.ts": "Tandem's own prompt and tool sources, to hash them",
  "sandbox/cgroups.ts": "the cgroup file system",
  "sandbox/egress-proxy.ts": "the proxy's socket file in the server's runtime folder",
  "sandbox/fd-relay.ts": "whether the native module is built",
  "tools/agent-browser/chromium.ts": "whether a Chromium binary exists at the configured or usual paths",
  "sandbox/git-config.ts": "the sandbox's own system git config, written in the server's runtime folder",
  "sandbox/trust-store.ts":
    "the host's CA bundle and the admin's extra certificates, merged into the server's runtime folder",
  "sandbox/identity.ts":
    "hands a workspace to the project's group at the first launch, through a descriptor of each entry (O_PATH, O_NOFOLLOW)",
  "sandbox/launcher.ts": "whether host tools exist",
  "sandbox/mounts.ts": "which host paths exist to be bound or masked",
  "sandbox/runtime-dir.ts": "the sandbox's runtime folder, made by the server",
  "environment/toolchain-cache.ts": "the toolchain cache, a server folder outside every workspace",
  "sandbox/holder-script.ts": "the source of a script run inside the sandbox, which reads /proc/net there",
  "sandbox/socket-owner.ts": "/proc, to find which process of a workspace's network holds a socket",
  "sandbox/workspace-network.ts": "a network namespace's descriptor under /proc, held open",
  "terminal/process-tree.ts": "/proc, to find a terminal's processes",
  "tools/socket-pair.ts": "a temp folder for a socket pair",
  // Git's own temp files and probes, and the language servers' packages.
  "git/credential-socket.ts": "the credential socket's temp folder",
  "git/repository.ts": "whether a git binary exists",
  "git/ssh-session.ts": "an SSH session's temp folder and key file",
  "git/summary.ts": "whether .git exists (lstat)",
  "language/launch.ts": "language server packages",
  // Test support.
  "test/git-http-server.ts": "a test git server's folders",
  "test/git-ssh-server.ts": "a test git server's folders",
  "test/global-setup.ts": "test set-up",
  "test/services.ts": "test set-up",
  "test/swap-with-link.ts": "the link a test's attacker swaps in",
  "test/cluster.ts": "a test cluster's own temp folders",
  "test/tool-session.ts": "test temp folders",
  "test/language-project.ts": "a test project's files",
  "test/temp-dirs.ts": "test temp folders",
  "test/watch-burst.ts": "moves a test's staged folder into the watched root, as a checkout would",
};

/** Files that define ResolvedPath and resolveInside, and the one that resolves with it. */
const RESOLVED_STRINGS_ALLOWED = new Set(["workspace/paths.ts", "workspace/workspace.ts"]);

const FS_IMPORT =
  /(?:from\s+["'](?:node:)?fs(?:\/promises)?["']|require\(\s*["'](?:node:)?fs(?:\/promises)?["']\s*\)|import\(\s*["'](?:node:)?fs(?:\/promises)?["']\s*\))/;
// `.absolute` / `.entry` as a property (not the spread `...entry`), and resolveInside itself.
const RESOLVED_STRING = /(?<![.\w])\w+\.(?:absolute|entry)\b|\bresolveInside\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")
      ? [full]
      : [];
  });
}

const files = sources(SERVER).map((file) => ({
  rel: path.relative(SERVER, file).split(path.sep).join("/"),
  text: readFileSync(file, "utf8"),
}));

describe("the workspace boundary", () => {
  it("imports node:fs only where the list above says why", () => {
    const offenders = files
      .filter((file) => FS_IMPORT.test(file.text) && !(file.rel in RAW_FS_ALLOWED))
      .map((file) => file.rel);
    expect(
      offenders,
      "these files use node:fs directly: reach workspace files through server/workspace (beneath.ts, Workspace), or add the file to RAW_FS_ALLOWED with why it never touches a workspace path",
    ).toEqual([]);
  });

  it("keeps the list exact: every listed file still imports node:fs", () => {
    const stale = Object.keys(RAW_FS_ALLOWED).filter(
      (rel) => !files.some((file) => file.rel === rel && FS_IMPORT.test(file.text)),
    );
    expect(stale, "remove these from RAW_FS_ALLOWED").toEqual([]);
  });

  it("uses no resolved path string (.absolute, .entry, resolveInside) outside paths.ts and Workspace", () => {
    const offenders = files
      .filter((file) => !RESOLVED_STRINGS_ALLOWED.has(file.rel))
      .flatMap((file) =>
        file.text
          .split("\n")
          .map((line, i) => ({ line, i }))
          .filter(({ line }) => RESOLVED_STRING.test(line))
          .map(({ line, i }) => `${file.rel}:${i + 1}: ${line.trim()}`),
      );
    expect(
      offenders,
      "open workspace paths beneath the root (beneath.ts) with the resolved `requested` path instead",
    ).toEqual([]);
  });
});
