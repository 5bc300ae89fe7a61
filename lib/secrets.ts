import { z } from "zod";

// Secrets: environment variables of a project's processes whose values the model, the logs and
// other people never see (docs/security.md#secrets). Shared by the API (validation) and the
// settings card (the same messages before a round trip).

export const SECRET_SCOPES = ["project", "team", "person"] as const;
export type SecretScope = (typeof SECRET_SCOPES)[number];

/**
 * Shorter values are refused: a secret is redacted wherever it appears, and redacting "abc" would
 * cut every word that holds it out of every output the model and people read.
 */
export const SECRET_MIN_LENGTH = 8;
export const SECRET_MAX_LENGTH = 32_768;

/**
 * Names the sandbox sets itself or that change how programs start, load code or reach the network:
 * a secret of that name would override Tandem's own value or turn a variable into code.
 */
const RESERVED = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "TERM_PROGRAM",
  "LANG",
  "LANGUAGE",
  "TZ",
  "PWD",
  "OLDPWD",
  "IFS",
  "ENV",
  "BASH_ENV",
  "PS1",
  "PS2",
  "PS4",
  "PROMPT_COMMAND",
  "SHELLOPTS",
  "BASHOPTS",
  "CDPATH",
  "HOSTNAME",
  "TMPDIR",
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "NODE_USE_ENV_PROXY",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PERL5LIB",
  "PERL5OPT",
  "RUBYOPT",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "PIP_CERT",
  "PIP_PROXY",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "FTP_PROXY",
  "GIT_SSL_CAINFO",
  "GIT_ALLOW_PROTOCOL",
  "GIT_ASKPASS",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "SSH_AUTH_SOCK",
  "SSH_ASKPASS",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "GIT_PAGER",
  // What glibc itself clears for a setuid program: each makes a privileged process load or read
  // files it names, and the steps that start a sandbox run as root (sandbox/launcher.ts).
  "GCONV_PATH",
  "GETCONF_DIR",
  "GLIBC_TUNABLES",
  "HOSTALIASES",
  "LOCALDOMAIN",
  "LOCPATH",
  "MALLOC_TRACE",
  "NIS_PATH",
  "NLSPATH",
  "RESOLV_HOST_CONF",
  "RES_OPTIONS",
  "TZDIR",
]);
const RESERVED_PREFIXES = ["TANDEM_", "LD_", "GIT_CONFIG", "NPM_CONFIG_", "BASH_FUNC_", "LC_", "__TANDEM"];

/** Why `name` cannot name a secret, or null when it can. */
export function secretNameProblem(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return "A secret's name is an environment variable name: letters, digits and _, not starting with a digit (e.g. NPM_TOKEN).";
  if (name.length > 128) return "A secret's name is at most 128 characters.";
  const upper = name.toUpperCase();
  if (RESERVED.has(upper) || RESERVED_PREFIXES.some((p) => upper.startsWith(p)))
    return `${name} is set by Tandem's sandbox or changes how programs start (PATH, HOME, LD_*, TANDEM_*, proxy and certificate variables...): choose another name.`;
  return null;
}

/** Whether the sandbox keeps its own value of `name` whatever a secret says. */
export const isReservedSecretName = (name: string) => secretNameProblem(name) !== null;

export const secretName = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    const problem = secretNameProblem(name);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const secretValue = z
  .string()
  .trim()
  .min(
    SECRET_MIN_LENGTH,
    `A secret is at least ${SECRET_MIN_LENGTH} characters: shorter values cannot be told apart from ordinary output, so they could not be hidden from the agent.`,
  )
  .max(SECRET_MAX_LENGTH, `A secret is at most ${SECRET_MAX_LENGTH} characters.`)
  .refine((value) => !value.includes("\0"), "A secret cannot hold a NUL character.");

/** What a list shows of a secret: never its value. */
export type SecretInfo = { id: string; name: string; createdAt: Date; updatedAt: Date };

/** The secret placeholder the model and the logs see instead of a value. */
export const secretPlaceholder = (name: string) => `[secret ${name}]`;
