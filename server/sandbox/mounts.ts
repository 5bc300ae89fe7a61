import { existsSync, lstatSync, readdirSync } from "node:fs";
import path from "node:path";

// What of the host a sandbox sees. Only the parts of /usr and /etc that tools need, read-only:
// not /usr/src or /usr/local/src and /usr/local/etc (where applications and their settings get
// installed, Tandem's own container layout among them), not /etc as a whole (it may hold secrets).

const USR_DIRS = [
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libx32",
  "/usr/libexec",
  "/usr/share",
  "/usr/include",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/usr/local/lib",
  "/usr/local/lib64",
  "/usr/local/include",
  "/usr/local/share",
];

// What bash, locales, TLS and the dynamic linker need.
const ETC_ENTRIES = [
  "/etc/alternatives",
  "/etc/bash.bashrc",
  "/etc/profile",
  "/etc/profile.d",
  "/etc/inputrc",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/locale.alias",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/terminfo",
  "/etc/mime.types",
  "/etc/os-release",
  "/etc/debian_version",
  "/etc/environment",
  "/etc/login.defs",
  "/etc/shells",
];

export function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of USR_DIRS) args.push("--ro-bind-try", dir, dir);
  // Merged-/usr systems have /bin, /lib ... as symlinks into /usr; older ones have real dirs.
  for (const dir of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push("--symlink", `usr${dir}`, dir);
    else args.push("--ro-bind", dir, dir);
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", entry, entry);
  return args;
}

/**
 * The folders to hide under an empty tmpfs: the server's install directory, data directory and home, parents first, so
 * nothing of them shows even where they lie under a bound path (/usr/local/lib/tandem, say).
 * The root and the system folders themselves are never masked: that would hide the tools, and
 * a path that does not exist has nothing to hide. A mask inside the workspace goes on after the
 * workspace's bind (`inside`), one outside before it; `remount` makes them all read-only and goes
 * last, since binds may need a mountpoint in a mask. `exists` answers for another machine's
 * layout (deploy/image-sandbox.test.ts checks the Docker image's).
 */
export function masks(
  paths: readonly string[],
  workspaceRoot: string,
  exists: (path: string) => boolean = existsSync,
): { outside: string[]; inside: string[]; remount: string[] } {
  const unique = [...new Set(paths.map((m) => path.resolve(m)))]
    .filter(
      (m) => m !== "/" && !["/usr", "/etc", "/tmp", "/usr/local", "/usr/lib", "/usr/bin"].includes(m) && exists(m),
    )
    .sort((a, b) => a.length - b.length);
  const within = (m: string) => {
    const rel = path.relative(workspaceRoot, m);
    return !rel.startsWith("..") && !path.isAbsolute(rel);
  };
  return { outside: unique.filter((m) => !within(m)), inside: unique.filter(within), remount: unique };
}

/**
 * /etc/profile.d as the host has it plus one script of the server's (`script`, bound read-only as
 * `name`): a tmpfs over the folder, each host entry bound back into it, the folder then read-only.
 */
export function profileScriptBinds(script: string, name: string): string[] {
  const dir = "/etc/profile.d";
  const entries = existsSync(dir) ? readdirSync(dir).filter((entry) => entry !== name) : [];
  return [
    "--tmpfs",
    dir,
    ...entries.flatMap((entry) => ["--ro-bind", `${dir}/${entry}`, `${dir}/${entry}`]),
    "--ro-bind",
    script,
    `${dir}/${name}`,
    "--remount-ro",
    dir,
  ];
}
