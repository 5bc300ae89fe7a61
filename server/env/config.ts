import type { SandboxLimits } from "@/lib/sandbox-limits";
import type { WebSearchBackendConfig } from "@/lib/web-search-config";
import type { Forges } from "@/lib/git-forges";
import type { SsoConfig } from "@/lib/sso";
import type { LanguagePlugins } from "@/lib/language-plugins";
import type { EmbeddingConfig, ModelsConfig } from "@/lib/model-providers";

// The server's settings as the rest of the server receives them, typed (load-config.ts makes one
// from the environment).

export type Config = {
  dev: boolean;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** "postgres" when several instances may share the database (the default with DATABASE_URL); "memory" for the embedded one. */
  bus: "memory" | "postgres";
  /** Several instances run on this database (TANDEM_CLUSTER): turns of a dead instance are taken over, not left interrupted. */
  cluster: boolean;
  /** Where peers reach this instance (TANDEM_INSTANCE_URL); undefined: its listen address. */
  instanceUrl: string | undefined;
  /** Where the workspace runners are reached (TANDEM_WORKSPACE_RUNNERS_URL); undefined: the instances hold projects themselves. */
  workspaceRunnersUrl: string | undefined;
  sandbox: "bwrap" | "none" | undefined;
  sandboxLimits: SandboxLimits;
  /** Test setting: names the egress proxy maps to fixed addresses, loopback allowed for them alone. */
  egressTestHosts: Map<string, string>;
  /** Remote MCP hosts (name or name:port) exempt from the address check (TANDEM_MCP_ALLOW_HOSTS). */
  mcpAllowHosts: string[];
  /** The agent's browser: a Chromium path, "off", or undefined to find one (TANDEM_BROWSER_CHROMIUM). */
  browserChromium: string | undefined;
  /** Language servers the admin adds for every project (TANDEM_LANGUAGE_SERVERS). */
  languageServers: LanguagePlugins;
  /** Internal hosts, domains, addresses and ranges every project may reach (TANDEM_INTERNAL_HOSTS). */
  internalHosts: string[];
  /** The admin's PEM file of extra trusted certificates (TANDEM_EXTRA_CA_CERTS), an absolute path. */
  extraCaCerts: string | undefined;
  /** The npm registry Node toolchains come from (TANDEM_TOOLCHAIN_REGISTRY). */
  toolchainRegistry: string;
  publicUrl: string | undefined;
  /**
   * Previews: the port they are served on (0: a free one) and the domain of their hosts. With a
   * domain set they are reached on the standard port of the public URL's scheme (behind a proxy).
   */
  preview: { port: number; domain: string | undefined };
  authSecret: string | undefined;
  importRoots: string[];
  /** Uploads: the most bytes one request may write, and the most files (or zip entries) it may hold. */
  upload: { maxBytes: number; maxFiles: number };
  previousSecrets: string[];
  gitForges: Forges;
  /** Whether stored git tokens may go to plain http:// remotes (TANDEM_GIT_ALLOW_HTTP); an admin's choice, off by default. */
  gitAllowHttp: boolean;
  models: ModelsConfig;
  /** The embedding model of semantic knowledge search; absent: full-text ranking alone. */
  embedding: EmbeddingConfig | undefined;
  smtp: SmtpConfig | undefined;
  /** Single sign-on (OpenID Connect); absent: email and password only. */
  sso: SsoConfig | undefined;
  /** Whether people may sign up and sign in with an email and password (TANDEM_PASSWORD_SIGN_IN). */
  passwordSignIn: boolean;
  /** The web search service from the environment; an admin's choice (admin page) wins over it. */
  webSearch: WebSearchBackendConfig | undefined;
  /** Where the agent's metrics go over OTLP/HTTP; absent: not exported. */
  telemetry: OtlpConfig | undefined;
};

/** The agent's metrics over OTLP/HTTP (server/telemetry/otlp-metrics.ts). */
export type OtlpConfig = {
  /** The metrics endpoint itself, e.g. http://collector:4318/v1/metrics. */
  url: string;
  headers: Record<string, string>;
  intervalMs: number;
  serviceName: string;
};

export type SmtpConfig = {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
  from: string;
};

/** Whether a configured listen host (Config.host) is a loopback address. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
