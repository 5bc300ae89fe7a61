import { userInfo } from "node:os";

// The environment of a sandboxed process is built from an allow-list: nothing of the server's own
// environment (database URL, API keys, auth secret) reaches it unless named here.

export const SANDBOX_USER = "tandem";
export const SANDBOX_HOME = "/home/tandem";
/** The system binaries, in the usual order: what commands the server runs for itself look up. */
export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const ALLOWED_ENV = new Set([
  "PATH",
  "HOME",
  "TERM",
  "COLORTERM",
  "TERM_PROGRAM",
  "LANG",
  "LANGUAGE",
  "USER",
  "LOGNAME",
  "SHELL",
  "TZ",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "GIT_PAGER",
  "CI",
  "NO_COLOR",
  "FORCE_COLOR",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG_GLOBAL",
  "GIT_TERMINAL_PROMPT",
  "NODE_ENV",
  "COLUMNS",
  "LINES",
]);
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|DATABASE_URL|COOKIE)/i;

export function isAllowedEnvName(name: string): boolean {
  if (SECRET_NAME.test(name)) return false;
  return ALLOWED_ENV.has(name) || /^LC_[A-Z_]+$/.test(name);
}

/** `home`: an unsandboxed process's home (the server user's when not given). */
export function sandboxEnv(
  sandboxed: boolean,
  extra: Record<string, string> = {},
  home?: string,
): Record<string, string> {
  const user = sandboxed ? SANDBOX_USER : userInfo().username;
  const env: Record<string, string> = {
    PATH: SYSTEM_PATH,
    HOME: sandboxed ? SANDBOX_HOME : (home ?? userInfo().homedir),
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

/**
 * What makes every common tool trust the bundle at `bundle` (the host's store and the admin's
 * certificates, trust-store.ts): Node (added to its own store), OpenSSL's default (Python, curl,
 * wget, Ruby), Python's requests and pip, git (Debian's is built on GnuTLS, which reads no
 * variable but its own), npm (its cafile replaces Node's store, so the bundle holds the system's).
 */
export function caEnv(bundle: string): Record<string, string> {
  return {
    NODE_EXTRA_CA_CERTS: bundle,
    SSL_CERT_FILE: bundle,
    REQUESTS_CA_BUNDLE: bundle,
    PIP_CERT: bundle,
    CURL_CA_BUNDLE: bundle,
    GIT_SSL_CAINFO: bundle,
    npm_config_cafile: bundle,
  };
}

/**
 * What points every common tool at the bridge's port inside the sandbox: curl, wget, pip,
 * Python and Node HTTP clients read the variables (Node's when told to); npm and git have their own settings (git
 * through GIT_CONFIG_COUNT, so no file in the workspace or home needs writing).
 */
export function proxyEnv(port: number, nodePreload?: string, token?: string): Record<string, string> {
  // On a workspace's shared listener the credentials say which process connected (egress-proxy.ts).
  const url = token ? `http://tandem:${token}@127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    // Node's own fetch and http clients ignore the variables unless asked (Node 22.21+, 24.5+);
    // older Nodes get the same from the preload (node-env-proxy.ts).
    NODE_USE_ENV_PROXY: "1",
    ...(nodePreload ? { NODE_OPTIONS: `--require=${nodePreload}` } : {}),
    NO_PROXY: "localhost,127.0.0.1,::1",
    no_proxy: "localhost,127.0.0.1,::1",
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    PIP_PROXY: url,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.proxy",
    GIT_CONFIG_VALUE_0: url,
  };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  return env;
}
