import path from "node:path";
import { DEFAULT_LIMITS } from "@/lib/sandbox-limits";
import type { WebSearchBackendConfig } from "@/lib/web-search-config";
import { internalHostEntry } from "@/lib/egress-policy";
import { parseForges, type Forges } from "@/lib/git-forges";
import { parseTeamGroups } from "@/lib/sso";
import { PROVIDERS, providerSpec, type ModelsConfig } from "@/lib/model-providers";
import type { Config, OtlpConfig } from "./config";
import { providerVariablesSchema, variablesSchema, type Variables } from "./variables";

// The only reader of process.env: the variables checked (variables.ts), then checked against each
// other, make the Config everything else receives.

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
  const parsed = variablesSchema.safeParse(env);
  const providerVariables = providerVariablesSchema.safeParse(env);
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
function otlpConfig(e: Variables): OtlpConfig | undefined {
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
