import path from "node:path";
import { z } from "zod";
import { DEFAULT_LIMITS, type SandboxLimits } from "@/lib/sandbox-limits";
import { WEB_SEARCH_KINDS, type WebSearchBackendConfig } from "@/lib/web-search-config";
import { internalHostEntry } from "@/lib/egress-policy";
import { parseForges, type Forges } from "@/lib/git-forges";
import { parseTeamGroups, type SsoConfig } from "@/lib/sso";
import { languagePluginsSchema, type LanguagePlugins } from "@/lib/language-plugins";
import {
  EMBEDDING_PROVIDERS,
  PROVIDERS,
  isModelId,
  providerSpec,
  type EmbeddingConfig,
  type ModelsConfig,
} from "@/lib/model-providers";

// The only reader of process.env. Everything else receives a typed Config.

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Where previews of the workspaces' servers are served (preview-server.ts); 0 or unset: a free port. */
  TANDEM_PREVIEW_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** The domain under which previews get their hosts (`<port>-<project>.<domain>`). */
  TANDEM_PREVIEW_DOMAIN: optionalString.pipe(
    z
      .string()
      .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, "must be a domain name such as preview.example.com")
      .optional(),
  ),
  TANDEM_DATA_DIR: z.string().min(1).default("./.tandem"),
  DATABASE_URL: optionalString.pipe(
    z.url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// or postgresql:// URL" }).optional(),
  ),
  TANDEM_SANDBOX: z.enum(["bwrap", "none"]).optional(),
  // Per-process limits of sandboxed commands (server/sandbox/limits.ts).
  TANDEM_SANDBOX_PROCESSES: z.coerce.number().int().min(16).optional(),
  TANDEM_SANDBOX_MEMORY_MB: z.coerce.number().int().min(64).optional(),
  TANDEM_SANDBOX_FILE_MB: z.coerce.number().int().min(1).optional(),
  TANDEM_SANDBOX_DISK_MB: z.coerce.number().int().min(1).optional(),
  TANDEM_SANDBOX_TMP_MB: z.coerce.number().int().min(1).optional(),
  // Tests only: names the egress proxy resolves to fixed (loopback) addresses, `name=ip,name=ip`.
  TANDEM_EGRESS_TEST_HOSTS: optionalString.pipe(
    z
      .string()
      .regex(
        /^([a-z0-9.-]+=[0-9a-f.:]+)(,[a-z0-9.-]+=[0-9a-f.:]+)*$/i,
        "must be name=address pairs separated by commas, e.g. registry.test=127.0.0.1",
      )
      .optional(),
  ),
  // The agent's browser (server/tools/agent-browser): a Chromium binary, or "off"; unset: found (system, then Playwright's).
  TANDEM_BROWSER_CHROMIUM: optionalString,
  // Remote MCP servers the admin allows on a local or private address on purpose (host or
  // host:port, comma-separated); every other remote MCP URL must reach a public address.
  TANDEM_MCP_ALLOW_HOSTS: optionalString.pipe(
    z
      .string()
      .regex(
        /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?(,\s*(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?)*$/i,
        "must be hosts or host:port pairs separated by commas, e.g. localhost:8931,10.0.0.7",
      )
      .optional(),
  ),
  // Language servers every project gets beside the built-in ones, as JSON (lib/language-plugins.ts):
  // {"go": {"command": ["gopls"], "files": ["*.go"]}}.
  TANDEM_LANGUAGE_SERVERS: optionalString.pipe(
    z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch (error) {
          ctx.addIssue({ code: "custom", message: `is not JSON: ${(error as Error).message}` });
          return z.NEVER;
        }
      })
      .pipe(languagePluginsSchema)
      .optional(),
  ),
  // Internal hosts and ranges every project may reach through the egress proxy, and clone, fetch
  // and push from (comma-separated: git.office.lan, *.corp.example, 10.20.0.0/16, 10.20.0.7).
  TANDEM_INTERNAL_HOSTS: optionalString,
  // A PEM file of certificates (a TLS-inspecting proxy's CA, an internal CA) trusted besides the
  // system's store, by sandboxed tools and by the server's own connections.
  TANDEM_EXTRA_CA_CERTS: optionalString,
  // The npm registry projects' Node toolchains are installed from (docs/environments.md).
  TANDEM_TOOLCHAIN_REGISTRY: optionalString.pipe(
    z.url({ message: "must be a registry URL such as https://registry.npmjs.org" }).optional(),
  ),
  TANDEM_PUBLIC_URL: optionalString.pipe(
    z.url({ message: "must be a URL such as https://tandem.example.com" }).optional(),
  ),
  BETTER_AUTH_SECRET: optionalString.pipe(
    z.string().min(32, "must be at least 32 characters (generate one with `openssl rand -hex 32`)").optional(),
  ),
  TANDEM_IMPORT_ROOTS: optionalString,
  // The most one upload (files dropped on the explorer, a zip for a new project) may hold.
  TANDEM_UPLOAD_MAX_MB: z.coerce.number().int().min(1, "must be at least 1 (megabytes)").max(102_400).default(200),
  // Secrets the server had before BETTER_AUTH_SECRET changed (comma-separated): stored git tokens
  // sealed under them are opened and sealed again under the current one at start-up.
  TANDEM_PREVIOUS_SECRETS: optionalString,
  // Self-hosted git forges for pull-request links and API calls: host=kind[@api-url], comma-separated.
  TANDEM_GIT_FORGES: optionalString,
  // Sends people's git tokens to plain http:// remotes (in clear text); off: such remotes get no credential.
  TANDEM_GIT_ALLOW_HTTP: optionalString.pipe(z.enum(["true", "false", "1", "0"]).optional()),
  TANDEM_DEV: optionalString,
  // How live events reach open connections: in this process, or through Postgres LISTEN/NOTIFY so
  // that several instances on one database see each other's (server/cluster/buses.ts).
  TANDEM_BUS: z.enum(["memory", "postgres"]).optional(),
  // Several instances share DATABASE_URL: each continues turns whose instance died (server/cluster/turn-jobs.ts).
  TANDEM_CLUSTER: optionalString.pipe(z.enum(["true", "false", "1", "0"]).optional()),
  // Where the other instances of a cluster reach this one, to forward requests for the projects
  // whose terminals it holds (server/cluster/workspace-leases.ts); defaults to its listen address.
  TANDEM_INSTANCE_URL: optionalString.pipe(z.url({ message: "must be a URL such as http://10.0.0.5:3000" }).optional()),
  // The workspace runners (server/cluster/workspace-runner-main.ts) behind one URL: the projects'
  // terminals, language servers and MCP connections run there instead of on the web instances.
  TANDEM_WORKSPACE_RUNNERS_URL: optionalString.pipe(
    z.url({ message: "must be a URL such as http://tandem-workspace-runner:3000" }).optional(),
  ),
  // Model providers (lib/model-providers.ts; their own variables are in providerSchema below).
  TANDEM_MODEL: optionalString.pipe(
    z
      .string()
      .refine((id) => isModelId(id), {
        message: `must be provider:model with provider one of ${PROVIDERS.join(", ")} (e.g. anthropic:claude-sonnet-4-5)`,
      })
      .optional(),
  ),
  // Models stream on a thread of their own (server/agent/model-thread/); 0 keeps them on the server's.
  TANDEM_MODEL_THREAD: optionalString.pipe(z.enum(["true", "false", "1", "0"]).optional()),
  // Semantic knowledge search: the embedding model (`provider:model`) and, optionally, an
  // OpenAI-compatible endpoint of its own (otherwise the provider's configured one serves it).
  TANDEM_EMBEDDING_MODEL: optionalString.pipe(
    z
      .string()
      .refine((id) => isModelId(id, EMBEDDING_PROVIDERS), {
        message: `must be provider:model with provider one of ${EMBEDDING_PROVIDERS.join(", ")} (e.g. openai:text-embedding-3-small)`,
      })
      .optional(),
  ),
  TANDEM_EMBEDDING_BASE_URL: optionalString.pipe(
    z
      .url({ message: "must be the embeddings server's OpenAI-compatible URL, e.g. http://localhost:8080/v1" })
      .optional(),
  ),
  TANDEM_EMBEDDING_API_KEY: optionalString,
  // Single sign-on with an OpenID Connect provider (docs/configuration.md#single-sign-on): its issuer
  // URL (discovery at <issuer>/.well-known/openid-configuration), this app's client, the button's
  // name, the email domains whose people get an account at their first sign-in, and whether
  // email and password sign-in stays on.
  TANDEM_OIDC_ISSUER: optionalString.pipe(
    z.url({ protocol: /^https?$/, message: "must be the OpenID provider's issuer URL" }).optional(),
  ),
  TANDEM_OIDC_CLIENT_ID: optionalString,
  TANDEM_OIDC_CLIENT_SECRET: optionalString,
  TANDEM_OIDC_NAME: optionalString,
  TANDEM_OIDC_ALLOWED_DOMAINS: optionalString,
  // Which provider groups make people members of which teams, and which make them the instance's
  // admins (docs/configuration.md#groups-teams-and-roles).
  TANDEM_OIDC_GROUPS_CLAIM: optionalString,
  TANDEM_OIDC_TEAM_GROUPS: optionalString.pipe(
    z
      .string()
      .optional()
      .superRefine((text, ctx) => {
        try {
          if (text) parseTeamGroups(text);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
        }
      }),
  ),
  TANDEM_OIDC_ADMIN_GROUPS: optionalString,
  TANDEM_PASSWORD_SIGN_IN: z.enum(["true", "false", "1", "0"]).optional(),
  // Outgoing mail for the agent's send_email tool: registered only when SMTP_HOST and SMTP_FROM are set.
  SMTP_HOST: optionalString,
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_SECURE: z.enum(["true", "false", "1", "0"]).optional(),
  SMTP_USER: optionalString,
  SMTP_PASSWORD: optionalString,
  SMTP_FROM: optionalString,
  // The agent's web_search tool: registered only when one of these is set (or an admin sets one).
  TANDEM_SEARXNG_URL: optionalString.pipe(
    z
      .url({ protocol: /^https?$/, message: "must be the SearXNG server's URL, e.g. http://searx.internal:8080" })
      .optional(),
  ),
  BRAVE_SEARCH_API_KEY: optionalString,
  TAVILY_API_KEY: optionalString,
  TANDEM_WEB_SEARCH: z.enum(WEB_SEARCH_KINDS).optional(),
  // The agent's tool and model metrics over OTLP/HTTP (OpenTelemetry's own variable names): exported only when an endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(
    z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
  ),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: optionalString.pipe(
    z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(1_000).optional(),
  OTEL_SERVICE_NAME: optionalString,
});

// Each provider's key and URL variables, as its entry in MODEL_PROVIDERS names them.
const providerVariables: Record<string, z.ZodType<string | undefined>> = {};
for (const id of PROVIDERS) {
  const { apiKeyVariable, baseUrlVariable } = providerSpec(id);
  if (apiKeyVariable) providerVariables[apiKeyVariable] = optionalString;
  if (baseUrlVariable) {
    providerVariables[baseUrlVariable.name] = optionalString.pipe(
      z.url({ message: `must be ${baseUrlVariable.example}` }).optional(),
    );
  }
}
const providerSchema = z.object(providerVariables);

/** The environment variables Tandem reads (deploy/manifests.test.ts checks the manifests set only these). */
export const CONFIG_VARIABLES: readonly string[] = [...Object.keys(schema.shape), ...Object.keys(providerSchema.shape)];

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

export class ConfigError extends Error {}

/** Each provider whose variables are set (or that needs none), as its entry in MODEL_PROVIDERS says. */
function providerConnections(variables: Record<string, string | undefined>): ModelsConfig["connections"] {
  const connections: ModelsConfig["connections"] = {};
  for (const id of PROVIDERS) {
    const spec = providerSpec(id);
    const apiKey = spec.apiKeyVariable ? variables[spec.apiKeyVariable] : undefined;
    const baseURL = spec.baseUrlVariable ? variables[spec.baseUrlVariable.name] : undefined;
    const explicit = spec.configuredBy === "apiKey" ? !!apiKey : !!baseURL;
    if (explicit || spec.configuredBy === null) connections[id] = { apiKey, baseURL, explicit };
  }
  return connections;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  const providerVariables = providerSchema.safeParse(env);
  if (!parsed.success || !providerVariables.success) {
    const issues = [...(parsed.error?.issues ?? []), ...(providerVariables.error?.issues ?? [])];
    const lines = issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nSee docs/configuration.md.`);
  }
  const e = parsed.data;
  if (e.TANDEM_OIDC_ISSUER && (!e.TANDEM_OIDC_CLIENT_ID || !e.TANDEM_OIDC_CLIENT_SECRET)) {
    throw new Error(
      "Invalid configuration:\n  TANDEM_OIDC_CLIENT_ID, TANDEM_OIDC_CLIENT_SECRET: set the client registered with the provider when TANDEM_OIDC_ISSUER is set\nSee docs/configuration.md.",
    );
  }
  if (!e.TANDEM_OIDC_ISSUER && (e.TANDEM_PASSWORD_SIGN_IN === "false" || e.TANDEM_PASSWORD_SIGN_IN === "0")) {
    throw new Error(
      "Invalid configuration:\n  TANDEM_PASSWORD_SIGN_IN: passwords can be turned off only when single sign-on (TANDEM_OIDC_ISSUER) is set\nSee docs/configuration.md.",
    );
  }
  if (e.SMTP_HOST && !e.SMTP_FROM) {
    throw new ConfigError(
      "Invalid configuration:\n  SMTP_FROM: set the sender address (e.g. tandem@example.com) when SMTP_HOST is set\nSee docs/configuration.md.",
    );
  }
  let gitForges: Forges;
  try {
    gitForges = parseForges(e.TANDEM_GIT_FORGES);
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration:\n  TANDEM_GIT_FORGES: ${(error as Error).message}\nSee docs/configuration.md.`,
    );
  }
  const internalHosts: string[] = [];
  for (const raw of (e.TANDEM_INTERNAL_HOSTS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)) {
    const entry = internalHostEntry.safeParse(raw);
    if (!entry.success)
      throw new ConfigError(
        `Invalid configuration:\n  TANDEM_INTERNAL_HOSTS: '${raw}' ${entry.error.issues[0]!.message}\nSee README.md, "Configuration".`,
      );
    internalHosts.push(entry.data);
  }
  const cluster = e.TANDEM_CLUSTER === "true" || e.TANDEM_CLUSTER === "1";
  if (cluster && !e.DATABASE_URL) {
    throw new ConfigError(
      "Invalid configuration:\n  TANDEM_CLUSTER: the instances of a cluster share one database; set DATABASE_URL to it\nSee docs/configuration.md.",
    );
  }
  if (e.TANDEM_WORKSPACE_RUNNERS_URL && !cluster) {
    throw new ConfigError(
      "Invalid configuration:\n  TANDEM_WORKSPACE_RUNNERS_URL: workspace runners serve a cluster; set TANDEM_CLUSTER=1\nSee docs/configuration.md.",
    );
  }
  const secure = e.SMTP_SECURE === "true" || e.SMTP_SECURE === "1";
  const searchBackends: WebSearchBackendConfig[] = [
    ...(e.TANDEM_SEARXNG_URL ? [{ kind: "searxng" as const, url: e.TANDEM_SEARXNG_URL }] : []),
    ...(e.BRAVE_SEARCH_API_KEY ? [{ kind: "brave" as const, apiKey: e.BRAVE_SEARCH_API_KEY }] : []),
    ...(e.TAVILY_API_KEY ? [{ kind: "tavily" as const, apiKey: e.TAVILY_API_KEY }] : []),
    // DuckDuckGo needs no key: it is used only when chosen by name.
    ...(e.TANDEM_WEB_SEARCH === "duckduckgo" ? [{ kind: "duckduckgo" as const }] : []),
  ];
  const webSearch = e.TANDEM_WEB_SEARCH
    ? searchBackends.find((b) => b.kind === e.TANDEM_WEB_SEARCH)
    : searchBackends[0];
  if (e.TANDEM_WEB_SEARCH && !webSearch) {
    throw new ConfigError(
      `Invalid configuration:\n  TANDEM_WEB_SEARCH: ${e.TANDEM_WEB_SEARCH} is chosen but not configured (set ${e.TANDEM_WEB_SEARCH === "searxng" ? "TANDEM_SEARXNG_URL" : e.TANDEM_WEB_SEARCH === "brave" ? "BRAVE_SEARCH_API_KEY" : "TAVILY_API_KEY"})\nSee docs/configuration.md.`,
    );
  }
  return {
    dev: e.TANDEM_DEV === "1",
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.TANDEM_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    // The embedded Postgres lives and dies with this one instance, so no other instance can share
    // it: its events stay in-process. An external database is how several instances share state.
    bus: e.TANDEM_BUS ?? (e.DATABASE_URL ? "postgres" : "memory"),
    cluster,
    instanceUrl: e.TANDEM_INSTANCE_URL,
    workspaceRunnersUrl: e.TANDEM_WORKSPACE_RUNNERS_URL,
    sandbox: e.TANDEM_SANDBOX,
    sandboxLimits: {
      ...DEFAULT_LIMITS,
      ...(e.TANDEM_SANDBOX_PROCESSES ? { processes: e.TANDEM_SANDBOX_PROCESSES } : {}),
      ...(e.TANDEM_SANDBOX_MEMORY_MB ? { memoryMiB: e.TANDEM_SANDBOX_MEMORY_MB } : {}),
      ...(e.TANDEM_SANDBOX_FILE_MB ? { fileSizeMiB: e.TANDEM_SANDBOX_FILE_MB } : {}),
      ...(e.TANDEM_SANDBOX_DISK_MB ? { diskMiB: e.TANDEM_SANDBOX_DISK_MB } : {}),
      ...(e.TANDEM_SANDBOX_TMP_MB ? { scratchMiB: e.TANDEM_SANDBOX_TMP_MB } : {}),
    },
    egressTestHosts: new Map(
      (e.TANDEM_EGRESS_TEST_HOSTS ?? "")
        .split(",")
        .filter(Boolean)
        .map((pair) => pair.split("=").map((part) => part.trim().toLowerCase()) as [string, string]),
    ),
    browserChromium: e.TANDEM_BROWSER_CHROMIUM,
    languageServers: e.TANDEM_LANGUAGE_SERVERS ?? {},
    mcpAllowHosts: (e.TANDEM_MCP_ALLOW_HOSTS ?? "")
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
    internalHosts,
    extraCaCerts: e.TANDEM_EXTRA_CA_CERTS && path.resolve(e.TANDEM_EXTRA_CA_CERTS),
    toolchainRegistry: e.TANDEM_TOOLCHAIN_REGISTRY ?? "https://registry.npmjs.org",
    publicUrl: e.TANDEM_PUBLIC_URL,
    preview: { port: e.TANDEM_PREVIEW_PORT, domain: e.TANDEM_PREVIEW_DOMAIN?.toLowerCase() },
    authSecret: e.BETTER_AUTH_SECRET,
    importRoots: (e.TANDEM_IMPORT_ROOTS ?? "")
      .split(path.delimiter)
      .filter(Boolean)
      .map((root) => path.resolve(root)),
    upload: { maxBytes: e.TANDEM_UPLOAD_MAX_MB * 1024 * 1024, maxFiles: 20_000 },
    previousSecrets: (e.TANDEM_PREVIOUS_SECRETS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    gitForges,
    gitAllowHttp: e.TANDEM_GIT_ALLOW_HTTP === "true" || e.TANDEM_GIT_ALLOW_HTTP === "1",
    models: {
      defaultModel: e.TANDEM_MODEL,
      connections: providerConnections(providerVariables.data),
      thread: e.TANDEM_MODEL_THREAD !== "false" && e.TANDEM_MODEL_THREAD !== "0",
    },
    embedding: e.TANDEM_EMBEDDING_MODEL
      ? { model: e.TANDEM_EMBEDDING_MODEL, baseURL: e.TANDEM_EMBEDDING_BASE_URL, apiKey: e.TANDEM_EMBEDDING_API_KEY }
      : undefined,
    smtp:
      e.SMTP_HOST && e.SMTP_FROM
        ? {
            host: e.SMTP_HOST,
            port: e.SMTP_PORT ?? (secure ? 465 : 587),
            secure,
            user: e.SMTP_USER,
            password: e.SMTP_PASSWORD,
            from: e.SMTP_FROM,
          }
        : undefined,
    sso:
      e.TANDEM_OIDC_ISSUER && e.TANDEM_OIDC_CLIENT_ID && e.TANDEM_OIDC_CLIENT_SECRET
        ? {
            issuer: e.TANDEM_OIDC_ISSUER.replace(/\/+$/, ""),
            clientId: e.TANDEM_OIDC_CLIENT_ID,
            clientSecret: e.TANDEM_OIDC_CLIENT_SECRET,
            name: e.TANDEM_OIDC_NAME ?? "single sign-on",
            allowedDomains: (e.TANDEM_OIDC_ALLOWED_DOMAINS ?? "")
              .split(",")
              .map((domain) => domain.trim().toLowerCase().replace(/^@/, ""))
              .filter(Boolean),
            groupsClaim: e.TANDEM_OIDC_GROUPS_CLAIM ?? "groups",
            teamGroups: e.TANDEM_OIDC_TEAM_GROUPS ? parseTeamGroups(e.TANDEM_OIDC_TEAM_GROUPS) : [],
            adminGroups: (e.TANDEM_OIDC_ADMIN_GROUPS ?? "")
              .split(",")
              .map((group) => group.trim())
              .filter(Boolean),
          }
        : undefined,
    passwordSignIn: e.TANDEM_PASSWORD_SIGN_IN !== "false" && e.TANDEM_PASSWORD_SIGN_IN !== "0",
    webSearch,
    telemetry: otlpConfig(e),
  };
}

/** OTLP's variables as the OpenTelemetry specification reads them: a base endpoint gets /v1/metrics, a metrics endpoint is used as it is. */
function otlpConfig(e: z.infer<typeof schema>): OtlpConfig | undefined {
  const url =
    e.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/metrics` : undefined);
  if (!url) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of (e.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return {
    url,
    headers,
    intervalMs: e.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000,
    serviceName: e.OTEL_SERVICE_NAME ?? "tandem",
  };
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
