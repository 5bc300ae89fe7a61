import { z } from "zod";
import { WEB_SEARCH_KINDS } from "@/lib/web-search-config";
import { parseTeamGroups } from "@/lib/sso";
import { languagePluginsSchema } from "@/lib/language-plugins";
import { EMBEDDING_PROVIDERS, PROVIDERS, isModelId, providerSpec } from "@/lib/model-providers";

// The environment variables Tandem reads, each parsed by zod (load-config.ts turns them into a Config).

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

export const variablesSchema = z.object({
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
  // Model providers (lib/model-providers.ts; their own variables are in providerVariablesSchema below).
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
export const providerVariablesSchema = z.object(providerVariables);

/** The environment variables Tandem reads (deploy/manifests.test.ts checks the manifests set only these). */
export const CONFIG_VARIABLES: readonly string[] = [
  ...Object.keys(variablesSchema.shape),
  ...Object.keys(providerVariablesSchema.shape),
];

export type Variables = z.infer<typeof variablesSchema>;
