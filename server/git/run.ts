import { GitProcessError, runGitProcess, type GitProcessOptions, type GitResult } from "@/server/sandbox/git-process";
import type { SandboxedCommand } from "@/server/sandbox/launcher";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { INTERNAL_HOSTS_HINT } from "@/server/sandbox/admit-host";
import { GitError, describeGitFailure } from "./errors";

/** Git runs through the server's sandbox room: the project's identity, and network only through its egress proxy. */
export type GitSandbox = Sandbox;

export interface GitRunOptions extends GitProcessOptions {
  /** Where git runs: the workspace root, bound read-write into the sandbox. */
  root: string;
  /**
   * Network (through the egress proxy, to `host` only, under project `projectId`'s policy), extra
   * config and binds, and the program git runs under (`wrap`, given git's command line as its
   * last arguments): only through the one launch in remote.ts.
   */
  network?: {
    projectId: string;
    host: string;
    config: string[];
    binds: Array<{ source: string; target: string }>;
    wrap: string[];
  };
  /** Repository hooks run (in the sandbox) for local commands that people start: commit, merge. */
  hooks?: boolean;
}

// Config that outranks everything a repository (or a file in the workspace) can set: git runs
// inside the sandbox anyway, and these keep the rest of a repository's code from running at all
// where it has no business (pager, fsmonitor, credential helpers, editors, odd transports).
const BASE_CONFIG = [
  "safe.directory=*",
  "core.pager=cat",
  "core.fsmonitor=false",
  "core.quotePath=false",
  "core.editor=true",
  "core.askPass=",
  "credential.helper=",
  // A fetch asks each alternate object store's repository for its refs by running git there, with
  // that repository's config: `true` answers nothing instead.
  "core.alternateRefsCommand=true",
  "protocol.allow=never",
  "protocol.http.allow=always",
  "protocol.https.allow=always",
  "submodule.recurse=false",
  "color.ui=false",
  "advice.detachedHead=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "init.defaultBranch=main",
];
const NO_HOOKS = ["core.hooksPath=/dev/null"];

const ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  LANG: "C",
  LC_ALL: "C",
  GIT_PAGER: "cat",
  PAGER: "cat",
};

/** Runs one git command in the project's sandbox and collects its output. */
export function runGit(sandbox: GitSandbox, args: string[], options: GitRunOptions): Promise<GitResult> {
  const config = [...BASE_CONFIG, ...(options.hooks ? [] : NO_HOOKS), ...(options.network?.config ?? [])];
  // Paths from people are file names, never pathspec magic such as ":(glob)".
  const command = [
    ...(options.network?.wrap ?? []),
    "git",
    "--no-pager",
    "--literal-pathspecs",
    ...config.flatMap((c) => ["-c", c]),
    ...args,
  ];
  const launching = sandbox.launch({
    workspaceRoot: options.root,
    command,
    env: ENV,
    newSession: true,
    source: { kind: "git", id: options.network?.projectId ?? "local" },
    ...(options.network
      ? {
          projectId: options.network.projectId,
          network: "project" as const,
          onlyHosts: [options.network.host],
          binds: options.network.binds.map((b) => ({ from: b.source, to: b.target })),
        }
      : { network: "none" as const }),
  });
  return launching.then((launch) =>
    run(launch.command, args, options)
      .then(
        (result) => result,
        (error: unknown) => {
          const refused = launch.refusals();
          if (refused.length && error instanceof GitError && error.code !== "CANCELLED") {
            const internal = refused.find((r) => r.address);
            if (internal) {
              const what =
                internal.host === internal.address ? internal.host : `${internal.host} (${internal.address})`;
              throw new GitError(
                "HOST_NOT_ALLOWED",
                `Tandem does not connect to ${what}: ${internal.reason}. ${INTERNAL_HOSTS_HINT}.`,
                error.detail,
              );
            }
            throw new GitError(
              "HOST_NOT_ALLOWED",
              `${refused.map((r) => r.host).join(", ")} is not allowed by the project's network policy: a project admin can add it in Project settings → Network.`,
              error.detail,
            );
          }
          throw error;
        },
      )
      .finally(() => launch.close()),
  );
}

/**
 * What the server reads of one git command's output. A blob compresses a thousand to one, so a
 * writer commits gigabytes of text for megabytes of disk; asking for that file's text or its
 * commit's patch (a viewer may) would gather it all in the server's memory.
 */
export const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

function run(sandboxed: SandboxedCommand, args: string[], options: GitRunOptions): Promise<GitResult> {
  return runGitProcess(sandboxed, { maxStdout: MAX_GIT_OUTPUT, ...options }).catch((error: unknown) => {
    if (!(error instanceof GitProcessError)) throw error;
    if (error.kind === "cancelled") throw new GitError("CANCELLED", "The git operation was cancelled.");
    if (error.kind === "overflow")
      throw new GitError(
        "TOO_LARGE",
        `git ${args[0]} gave more than ${MAX_GIT_OUTPUT / 1024 / 1024} MB, which is too large to show here: look at it in a terminal.`,
      );
    if (error.kind !== "exit" || !error.result)
      throw new GitError("GIT_UNAVAILABLE", `Could not start git: ${error.message}`);
    // Merges report their conflicts on stdout.
    const { stderr, stdout } = error.result;
    throw describeGitFailure(args[0] ?? "git", `${stderr}\n${stdout.toString("utf8").slice(-4000)}`);
  });
}

export const text = (result: GitResult) => result.stdout.toString("utf8");
