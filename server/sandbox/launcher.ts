import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { caEnv, proxyEnv, sandboxEnv } from "./environment";
import {
  type GitIdentity,
  gitIdentityFile,
  SANDBOX_GIT_CONFIG,
  SANDBOX_GIT_IDENTITY,
  sandboxGitConfigFile,
} from "./git-config";
import { NODE_PRELOAD, UNDICI_DIR, UNDICI_MOUNT } from "./node-env-proxy";
import { canSwitchIdentity, dropIdentity, INNER_ID, prepareWorkspace, projectIdentity } from "./identity";
import { createSandboxCgroup, joinCgroupPrefix, type CgroupSupport } from "./cgroups";
import type { SandboxLimits } from "@/lib/sandbox-limits";
import { isReservedSecretName } from "@/lib/secrets";
import { limitPrefix, nicePrefix } from "./limits";
import { insidePath, workspacePathInside } from "@/lib/workspace-mount";
import { TOOLCHAIN_MOUNT } from "@/lib/toolchains";
import { masks, profileScriptBinds, systemBinds } from "./mounts";
import { runtimeDir } from "./runtime-dir";
import { treeRoots, type TreeRoots } from "./tree-roots";

export type SandboxMode = "bwrap" | "none";

/** How this server starts sandboxes: the same for every project. */
export interface SandboxHost {
  mode: SandboxMode;
  /** Folders hidden by an empty tmpfs: the server's install directory, data directory and home. */
  masks: readonly string[];
  /** Start each project's sandbox as its own unprivileged host uid/gid (only possible as root). */
  perProjectUid: boolean;
  limits: SandboxLimits | null;
  /** Whether each sandbox gets a cgroup v2 of its own (a delegated tree), besides the rlimits (cgroups.ts). */
  cgroups?: CgroupSupport;
  /** Where bubblewrap is; tests point it at a missing file to prove the launcher fails closed. */
  bwrapPath?: string;
  /** Set when bubblewrap was wanted but does not work here: every launch fails with this. */
  unavailable?: string;
  /** The CA bundle sandboxed tools trust (trust-store.ts), bound read-only at CA_BUNDLE; without it they see the host's /etc/ssl alone. */
  caBundle?: string;
  /**
   * Where projects' trees are (tree-roots.ts). A process in a session's worktree runs as its
   * project's identity and sees, besides the worktree, only the main tree's `.git` at its host path:
   * git's worktree files name it by absolute path (git 2.39 has no relative worktree paths).
   */
  trees?: TreeRoots;
  /**
   * The home of unsandboxed processes (mode "none"): a shell there reads its dotfiles. The test
   * servers give an empty one, so that the host's ~/.bashrc does not run in their terminals.
   */
  home?: string;
}

export interface SandboxOptions {
  /** Absolute path of the workspace: the only writable place, bound at the same path inside. */
  workspaceRoot: string;
  command: string[];
  /** Working directory inside the sandbox; defaults to the workspace root. */
  cwd?: string;
  /** Extra variables; only names on the allow-list pass, and secret-looking names never do. */
  env?: Record<string, string>;
  /**
   * The project's secrets for this process (server/services/secrets.ts), passed whatever their
   * names look like; a name the sandbox sets itself (lib/secrets.ts) keeps the sandbox's value.
   */
  secrets?: Record<string, string>;
  /**
   * Detach from the controlling terminal (setsid). Use for non-interactive commands: it stops a
   * sandboxed process from injecting keystrokes, but it breaks job control in an interactive PTY.
   */
  newSession?: boolean;
  /** The egress proxy's socket on the host; without it the sandbox has no network at all. */
  egressSocket?: string;
  /** Read-only binds of server-side files at fixed paths (language servers' packages). */
  readOnlyBinds?: { from: string; to: string }[];
  /** Read-write binds (git's one-shot credential socket folder). */
  binds?: { from: string; to: string }[];
  /** The project is past its disk budget: the command starts unable to grow any file (disk-budget.ts). */
  growthStopped?: boolean;
  /** Work nobody waits on as it runs (language servers): started at BACKGROUND_NICE, sandboxed or not. */
  background?: boolean;
  /** Who git commits as (a terminal's owner); a repository's own user settings still win. */
  gitIdentity?: GitIdentity;
  /**
   * Joins this network namespace (a path nsenter opens: the workspace's network,
   * workspace-network.ts) instead of making one of its own. Needs the server to be root.
   */
  joinNetwork?: string;
  /** The proxy credentials of this process on its workspace's shared egress listener (egress-proxy.ts). */
  proxyToken?: string;
  /** Where bubblewrap writes its child's pid (`--info-fd`): the workspace network's holder reads it. */
  infoFd?: number;
  /** The project's toolchains (server/environment/): each folder bound read-only, its `bin` first on the PATH. */
  toolchains?: readonly ToolchainMount[];
}

/** An installed toolchain: its folder on the host, in the server's cache outside every workspace. */
export type ToolchainMount = { name: string; dir: string };

export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Where the process sees its workspace: /workspace when sandboxed (lib/workspace-mount.ts). */
  workspace: string;
  /** Pass to spawn (child_process or node-pty): the project's host identity when the server is root. */
  uid?: number;
  gid?: number;
  /** Removes what the sandbox left on the host (its cgroup); call when the process has exited. */
  release?(): void;
}

/** Where the bridge listens inside the sandbox, and where the egress socket is bound. */
export const BRIDGE_PORT = 3128;
const EGRESS_SOCKET = "/run/tandem/egress.sock";
const BRIDGE = "/run/tandem/bridge.cjs";
export const NODE = "/run/tandem/node";
const RELAY_MODULE = "/run/tandem/fd_relay.node";
const CA_BUNDLE = "/run/tandem/ca-certificates.crt";

export class SandboxUnavailableError extends Error {}

export function sandboxCommand(host: SandboxHost, options: SandboxOptions): SandboxedCommand {
  const { workspaceRoot, command } = options;
  if (command.length === 0) throw new Error("sandboxCommand needs a command to run");
  if (!path.isAbsolute(workspaceRoot)) throw new Error("workspaceRoot must be an absolute path");
  const cwd = path.resolve(workspaceRoot, options.cwd ?? ".");
  if (host.mode === "none") {
    const [file, ...args] = [...nicePrefix(null, options.background), ...command];
    const env = { ...secretEnv(options.secrets), ...sandboxEnv(false, options.env, host.home) };
    Object.assign(env, toolchainEnv(options.toolchains, false, env.PATH!));
    if (options.gitIdentity) env.GIT_CONFIG_GLOBAL = gitIdentityFile(options.gitIdentity);
    return {
      file: file!,
      args,
      env,
      cwd,
      workspace: workspaceRoot,
    };
  }
  if (host.unavailable) throw new SandboxUnavailableError(host.unavailable);
  const bwrap = host.bwrapPath ?? defaultBwrapPath();
  if (!existsSync(bwrap))
    throw new SandboxUnavailableError(`bubblewrap is not installed at ${bwrap}; sandboxed commands cannot run.`);
  const identity = sandboxIdentity(host, workspaceRoot);
  if (identity) {
    // A worktree's git writes into the main tree's repository: that tree is handed over too.
    const main = host.trees?.mainOf(workspaceRoot);
    if (main && existsSync(main)) prepareWorkspace(main, identity);
    prepareWorkspace(workspaceRoot, identity);
  }
  const env: Record<string, string> = {
    ...secretEnv(options.secrets),
    ...sandboxEnv(true, options.env),
    GIT_CONFIG_SYSTEM: SANDBOX_GIT_CONFIG,
    ...(options.gitIdentity ? { GIT_CONFIG_GLOBAL: SANDBOX_GIT_IDENTITY } : {}),
    ...(host.caBundle ? caEnv(CA_BUNDLE) : {}),
    ...(options.egressSocket || options.proxyToken ? proxyEnv(BRIDGE_PORT, NODE_PRELOAD, options.proxyToken) : {}),
  };
  Object.assign(env, toolchainEnv(options.toolchains, true, env.PATH!));
  const inside = workspacePathInside(true, workspaceRoot);
  const niced = [...nicePrefix(host.limits, options.background), ...command];
  // With network, the bridge runs first and the shell then becomes the command (exec): the
  // command is bubblewrap's child either way, with nothing of Tandem's left running beside it.
  const bridge = `${NODE} ${BRIDGE} ${BRIDGE_PORT} ${EGRESS_SOCKET} ${RELAY_MODULE} && exec "$@"`;
  const inner = options.egressSocket ? ["/bin/sh", "-c", bridge, "tandem-bridge", ...niced] : niced;
  const args = [...bwrapArgs(host, { ...options, cwd }), "--", ...inner];
  const limited = host.limits ? limitPrefix(host.limits, identity !== undefined, options.growthStopped) : [];
  // Joining the workspace's network takes root (setns): nsenter runs first, as the server's
  // user, and the identity is dropped after it (as for the cgroup below).
  const join = options.joinNetwork ? ["/usr/bin/nsenter", `--net=${options.joinNetwork}`, "--"] : [];
  if (host.cgroups?.kind === "v2" && host.limits) {
    // Started as the server's user: the first process joins the cgroup, then drops to the identity.
    const cgroup = createSandboxCgroup(host.cgroups.sandboxes, randomUUID(), host.limits);
    const [file, ...rest] = [...join, ...joinCgroupPrefix(cgroup.procs, identity), ...limited, bwrap, ...args];
    return { file: file!, args: rest, env, cwd, workspace: inside, release: cgroup.remove };
  }
  if (options.joinNetwork) {
    const [file, ...rest] = [...join, ...dropIdentity(identity), ...limited, bwrap, ...args];
    return { file: file!, args: rest, env, cwd, workspace: inside };
  }
  const [file, ...rest] = [...limited, bwrap, ...args];
  return {
    file: file!,
    args: rest,
    env,
    cwd,
    workspace: inside,
    ...(identity ? { uid: identity.uid, gid: identity.gid } : {}),
  };
}

const secretEnv = (secrets: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(secrets).filter(([name]) => !isReservedSecretName(name)));

/** Who a process in `workspaceRoot` runs as: its project's identity (a worktree's is its main tree's). */
export function sandboxIdentity(host: SandboxHost, workspaceRoot: string) {
  if (!host.perProjectUid) return undefined;
  return projectIdentity(host.trees?.mainOf(workspaceRoot) ?? workspaceRoot);
}

/**
 * The main repository's `.git` folder a worktree's git needs, or undefined (not a worktree, or no
 * such folder). A `.git` that is a link is not followed: bubblewrap would bind what it names.
 */
function sharedGitDir(host: SandboxHost, workspaceRoot: string): string | undefined {
  const main = host.trees?.mainOf(workspaceRoot);
  if (!main) return undefined;
  const gitDir = path.join(main, ".git");
  return lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() ? gitDir : undefined;
}

/**
 * For spawners that take no uid/gid (the MCP SDK's stdio transport): the same command started
 * through util-linux's setpriv, which drops to the identity and clears supplementary groups.
 */
export function withIdentityInCommand(command: SandboxedCommand): Omit<SandboxedCommand, "uid" | "gid"> {
  if (command.uid === undefined || command.gid === undefined) return command;
  const [file, ...args] = [...dropIdentity({ uid: command.uid, gid: command.gid }), command.file, ...command.args];
  return {
    file: file!,
    args,
    env: command.env,
    cwd: command.cwd,
    workspace: command.workspace,
  };
}

/** Every namespace of its own, or all but the network when it joins its workspace's. */
function unshare(options: SandboxOptions): string[] {
  if (!options.joinNetwork) return ["--unshare-all"];
  return ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"];
}

function bwrapArgs(host: SandboxHost, options: SandboxOptions & { cwd: string }): string[] {
  const runtime = runtimeDir();
  const masked = masks(host.masks, options.workspaceRoot);
  // tmpfs lives in memory: without a size, `yes > /tmp/x` would fill the server's RAM.
  const scratch = host.limits ? ["--size", String(host.limits.scratchMiB * 1024 * 1024)] : [];
  const args = [
    ...unshare(options),
    "--unshare-user",
    "--uid",
    String(INNER_ID),
    "--gid",
    String(INNER_ID),
    "--disable-userns",
    "--die-with-parent",
    ...(options.infoFd !== undefined ? ["--info-fd", String(options.infoFd)] : []),
    ...(options.newSession ? ["--new-session"] : []),
    "--hostname",
    "tandem",
    ...systemBinds(),
    "--ro-bind",
    runtime.passwd,
    "/etc/passwd",
    "--ro-bind",
    runtime.group,
    "/etc/group",
    "--ro-bind",
    sandboxGitConfigFile(options.workspaceRoot),
    SANDBOX_GIT_CONFIG,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...scratch,
    "--tmpfs",
    "/tmp",
    ...scratch,
    "--tmpfs",
    "/home/tandem",
    ...(host.limits ? ["--size", String(16 * 1024 * 1024)] : []),
    "--tmpfs",
    "/run",
    ...masked.outside.flatMap((m) => ["--tmpfs", m]),
  ];
  if (options.egressSocket) {
    // The bridge runs on the server's own node, bound at a fixed path so a node under a masked
    // folder (nvm in the server's home) still works, with the native module that hands its
    // listener to the server (a copy in the runtime folder: the install folder is masked).
    if (!runtime.relayModule)
      throw new SandboxUnavailableError(
        "The egress proxy's native module is not built; sandboxed commands cannot have network.",
      );
    args.push(
      "--ro-bind",
      runtime.bridge,
      BRIDGE,
      "--ro-bind",
      process.execPath,
      NODE,
      "--ro-bind",
      runtime.relayModule,
      RELAY_MODULE,
      "--bind",
      options.egressSocket,
      EGRESS_SOCKET,
    );
  }
  // The proxy settings name Node's preload: a process on its workspace's shared listener needs it as well.
  if (options.egressSocket || options.proxyToken)
    args.push("--ro-bind", runtime.nodePreload, NODE_PRELOAD, "--ro-bind", UNDICI_DIR, UNDICI_MOUNT);
  if (host.caBundle) args.push("--ro-bind", host.caBundle, CA_BUNDLE);
  if (options.toolchains?.length) {
    for (const toolchain of options.toolchains)
      args.push("--ro-bind", toolchain.dir, `${TOOLCHAIN_MOUNT}/${toolchain.name}`);
    // A login shell's /etc/profile sets PATH anew; a profile.d script of ours puts them first again.
    args.push(...profileScriptBinds(runtime.toolchainProfile, "zz-tandem-toolchains.sh"));
  }
  if (options.gitIdentity) args.push("--ro-bind", gitIdentityFile(options.gitIdentity), SANDBOX_GIT_IDENTITY);
  for (const bind of options.readOnlyBinds ?? []) args.push("--ro-bind", bind.from, bind.to);
  for (const bind of options.binds ?? []) args.push("--bind", bind.from, bind.to);
  const gitDir = sharedGitDir(host, options.workspaceRoot);
  if (gitDir) args.push("--bind", gitDir, gitDir);
  // Last, so a workspace under /tmp or under a masked data directory is bound on top.
  const root = options.workspaceRoot;
  args.push("--bind", root, root, ...masked.inside.flatMap((m) => ["--tmpfs", m]));
  // And at WORKSPACE_MOUNT, where processes start (lib/workspace-mount.ts), masked the same way.
  const inside = workspacePathInside(true, root);
  const alsoInside = inside === root ? [] : masked.inside.map((m) => insidePath(true, root, m));
  if (inside !== root) args.push("--bind", root, inside, ...alsoInside.flatMap((m) => ["--tmpfs", m]));
  // The sandbox's own root (where /usr, /etc and the masks' mountpoints live) read-only too:
  // what is writable is the workspace, /tmp and the home, nothing that looks like a host path.
  args.push(...[...masked.remount, ...alsoInside].flatMap((m) => ["--remount-ro", m]));
  args.push("--remount-ro", "/", "--chdir", insidePath(true, root, options.cwd));
  return args;
}

/**
 * PATH with each toolchain's `bin` first (where the sandbox binds it, or its host folder without a
 * sandbox), and the same folders as TANDEM_TOOLCHAINS: the agent's shell puts them first again on a
 * PATH an earlier command saved (shell-session.ts).
 */
function toolchainEnv(
  toolchains: readonly ToolchainMount[] | undefined,
  sandboxed: boolean,
  rest: string,
): Record<string, string> {
  if (!toolchains?.length) return {};
  const bins = toolchains.map((t) => path.join(sandboxed ? `${TOOLCHAIN_MOUNT}/${t.name}` : t.dir, "bin")).join(":");
  return { PATH: `${bins}:${rest}`, TANDEM_TOOLCHAINS: bins };
}

let bwrapFile: string | undefined;

/** Where this host's bwrap is (the first of the usual places that has one). */
export function defaultBwrapPath(): string {
  bwrapFile ??= ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"].find((p) => existsSync(p)) ?? "/usr/bin/bwrap";
  return bwrapFile;
}

/** The host as this server runs it: masks from its own paths, a per-project uid when it is root. */
export function defaultSandboxHost(
  mode: SandboxMode,
  options: { dataDir: string; installDir?: string; home?: string; limits?: SandboxLimits | null; bwrapPath?: string },
): SandboxHost {
  const home = options.home ?? homedir();
  return {
    mode,
    masks: [options.installDir ?? process.cwd(), options.dataDir, home],
    perProjectUid: mode === "bwrap" && canSwitchIdentity(),
    trees: treeRoots(options.dataDir),
    limits: options.limits ?? null,
    bwrapPath: options.bwrapPath,
    home,
  };
}

const availability = new Map<string, Promise<boolean>>();

/** Whether bwrap runs here: it can be installed yet refused by a container's seccomp or userns policy. */
export function bwrapAvailable(bwrapPath?: string): Promise<boolean> {
  const key = bwrapPath ?? "";
  let known = availability.get(key);
  if (!known) {
    known = new Promise((resolve) => {
      let sandboxed: SandboxedCommand;
      const host: SandboxHost = { mode: "bwrap", masks: [], perProjectUid: false, limits: null, bwrapPath };
      try {
        sandboxed = sandboxCommand(host, { workspaceRoot: tmpdir(), command: ["/bin/true"], newSession: true });
      } catch {
        resolve(false);
        return;
      }
      execFile(sandboxed.file, sandboxed.args, { env: sandboxed.env as NodeJS.ProcessEnv, timeout: 10_000 }, (error) =>
        resolve(!error),
      );
    });
    availability.set(key, known);
  }
  return known;
}
