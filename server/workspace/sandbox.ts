import { execFile } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

export type SandboxMode = "bwrap" | "none";

export interface SandboxOptions {
  mode: SandboxMode;
  /** Absolute path of the workspace: the only writable place, bound at the same path inside. */
  workspaceRoot: string;
  command: string[];
  /** Working directory inside the sandbox; defaults to the workspace root. */
  cwd?: string;
  allowNetwork?: boolean;
  /** Extra variables; only names on the allow-list pass, and secret-looking names never do. */
  env?: Record<string, string>;
  /**
   * Detach from the controlling terminal (setsid). Use for non-interactive commands: it stops a
   * sandboxed process from injecting keystrokes, but it breaks job control in an interactive PTY.
   */
  newSession?: boolean;
  /** Extra directories bound read-write at `target` (git's one-shot credential socket). */
  binds?: Array<{ source: string; target: string }>;
}

export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export const SANDBOX_USER = "tandem";
export const SANDBOX_HOME = "/home/tandem";
const SANDBOX_UID = 1000;
/** The system binaries, in the usual order: what commands the server runs for itself look up. */
export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const ALLOWED_ENV = new Set([
  "PATH", "HOME", "TERM", "COLORTERM", "TERM_PROGRAM", "LANG", "LANGUAGE", "USER", "LOGNAME",
  "SHELL", "TZ", "EDITOR", "VISUAL", "PAGER", "GIT_PAGER", "CI", "NO_COLOR", "FORCE_COLOR",
  "NODE_ENV", "COLUMNS", "LINES", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_TERMINAL_PROMPT",
]);
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|DATABASE_URL|COOKIE)/i;

export function isAllowedEnvName(name: string): boolean {
  if (SECRET_NAME.test(name)) return false;
  return ALLOWED_ENV.has(name) || /^LC_[A-Z_]+$/.test(name);
}

export function sandboxEnv(
  mode: SandboxMode,
  extra: Record<string, string> = {},
): Record<string, string> {
  const user = mode === "bwrap" ? SANDBOX_USER : userInfo().username;
  const env: Record<string, string> = {
    PATH: SYSTEM_PATH,
    HOME: mode === "bwrap" ? SANDBOX_HOME : userInfo().homedir,
    USER: user,
    LOGNAME: user,
    SHELL: "/bin/bash",
    TERM: "xterm-256color",
    COLORTERM: "truecolor",
    LANG: "C.UTF-8",
  };
  for (const [name, value] of Object.entries(extra)) {
    if (isAllowedEnvName(name)) env[name] = value;
  }
  return env;
}

export function sandboxCommand(options: SandboxOptions): SandboxedCommand {
  const { mode, workspaceRoot, command } = options;
  if (command.length === 0) throw new Error("sandboxCommand needs a command to run");
  if (!path.isAbsolute(workspaceRoot)) throw new Error("workspaceRoot must be an absolute path");
  const cwd = path.resolve(workspaceRoot, options.cwd ?? ".");
  const env = sandboxEnv(mode, options.env);
  if (mode === "none") {
    return { file: command[0]!, args: command.slice(1), env, cwd };
  }
  return { file: bwrapPath(), args: [...bwrapArgs({ ...options, cwd }), "--", ...command], env, cwd };
}

function bwrapArgs(options: SandboxOptions & { cwd: string }): string[] {
  const args = [
    "--unshare-all",
    ...(options.allowNetwork ? ["--share-net"] : []),
    "--unshare-user",
    "--uid", String(SANDBOX_UID),
    "--gid", String(SANDBOX_UID),
    "--disable-userns",
    "--die-with-parent",
    ...(options.newSession ? ["--new-session"] : []),
    "--hostname", "tandem",
    "--ro-bind", "/usr", "/usr",
  ];
  // Merged-/usr systems have /bin, /lib ... as symlinks into /usr; older ones have real dirs.
  for (const dir of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push("--symlink", `usr${dir}`, dir);
    else args.push("--ro-bind", dir, dir);
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", entry, entry);
  if (options.allowNetwork) args.push("--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf");
  const identity = identityFiles();
  args.push(
    "--ro-bind", identity.passwd, "/etc/passwd",
    "--ro-bind", identity.group, "/etc/group",
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/tmp",
    "--tmpfs", SANDBOX_HOME,
    // After the tmpfs mounts, so a workspace under /tmp is bound on top of the private /tmp.
    "--bind", options.workspaceRoot, options.workspaceRoot,
  );
  for (const bind of options.binds ?? []) args.push("--bind", bind.source, bind.target);
  args.push("--chdir", options.cwd);
  return args;
}

// What bash, locales, TLS and the dynamic linker need; not all of /etc, which may hold secrets.
const ETC_ENTRIES = [
  "/etc/alternatives", "/etc/bash.bashrc", "/etc/profile", "/etc/profile.d", "/etc/inputrc",
  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/locale.alias",
  "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf",
  "/etc/ssl", "/etc/ca-certificates", "/etc/terminfo", "/etc/mime.types", "/etc/os-release",
  "/etc/debian_version", "/etc/environment", "/etc/login.defs", "/etc/shells",
];

let identity: { passwd: string; group: string } | undefined;

// The sandbox user must resolve to a name (prompts, git, ssh); the host's passwd must not leak in.
function identityFiles(): { passwd: string; group: string } {
  if (identity) return identity;
  const dir = mkdtempSync(path.join(tmpdir(), "tandem-sandbox-"));
  const passwd = path.join(dir, "passwd");
  const group = path.join(dir, "group");
  writeFileSync(
    passwd,
    `${SANDBOX_USER}:x:${SANDBOX_UID}:${SANDBOX_UID}:Tandem:${SANDBOX_HOME}:/bin/bash\n` +
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    { mode: 0o644 },
  );
  writeFileSync(group, `${SANDBOX_USER}:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`, { mode: 0o644 });
  identity = { passwd, group };
  return identity;
}

let bwrapFile: string | undefined;

function bwrapPath(): string {
  bwrapFile ??=
    ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"].find((p) => existsSync(p)) ??
    "bwrap";
  return bwrapFile;
}

let availability: Promise<boolean> | undefined;

/** Whether bwrap runs here: it can be installed yet refused by a container's seccomp or userns policy. */
export function bwrapAvailable(): Promise<boolean> {
  availability ??= new Promise((resolve) => {
    let sandboxed: SandboxedCommand;
    try {
      sandboxed = sandboxCommand({
        mode: "bwrap",
        workspaceRoot: tmpdir(),
        command: ["/bin/true"],
        newSession: true,
      });
    } catch {
      resolve(false);
      return;
    }
    execFile(sandboxed.file, sandboxed.args, { env: sandboxed.env as NodeJS.ProcessEnv, timeout: 10_000 }, (error) =>
      resolve(!error),
    );
  });
  return availability;
}
