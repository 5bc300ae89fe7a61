// The model providers, one entry each: the environment variables that set one up, what to tell a
// person who has not, the models to suggest, how its tool schemas are written and whether it
// serves embeddings. server/env/ parses the variables from here, the session router and the
// registry check model ids against it, and server/agent/provider-factories.ts makes its models.
// Adding a provider is an entry here and its factory there.

/** Provider families whose tool schemas need different treatment (server/tools/schema.ts). */
export type SchemaDialect = "google" | "anthropic" | "openai" | "openai-compatible";

export type ProviderSpec = {
  /** The variable of its API key; set means configured unless `configuredBy` says the URL. */
  apiKeyVariable?: string;
  /** The variable of its base URL, and what a bad value is told. */
  baseUrlVariable?: { name: string; example: string };
  /** Which variable sets the provider up; `null`: none is needed (Ollama: a reachable server). */
  configuredBy: "apiKey" | "baseURL" | null;
  /** Where requests go when no base URL is set; `null`: nowhere until one is. */
  defaultBaseURL: string | null;
  /** What to set, in words a person can act on. */
  setup: string;
  /** Well-known models to offer when it is configured; the first is the default when TANDEM_MODEL is unset. */
  suggested: string[];
  /** A hosted provider whose models are known by name (vision and context-window defaults). */
  hosted: boolean;
  /** An OpenAI-compatible server: it lists what it can run at GET /models. */
  listsModels: boolean;
  dialect: SchemaDialect;
  embeds: boolean;
};

export const MODEL_PROVIDERS = {
  openai: {
    apiKeyVariable: "OPENAI_API_KEY",
    baseUrlVariable: { name: "OPENAI_BASE_URL", example: "a URL such as https://api.openai.com/v1" },
    configuredBy: "apiKey",
    defaultBaseURL: "https://api.openai.com/v1",
    setup: "Set OPENAI_API_KEY (and OPENAI_BASE_URL for a proxy).",
    suggested: ["gpt-5", "gpt-5-mini", "gpt-4.1"],
    hosted: true,
    listsModels: false,
    dialect: "openai",
    embeds: true,
  },
  anthropic: {
    apiKeyVariable: "ANTHROPIC_API_KEY",
    configuredBy: "apiKey",
    defaultBaseURL: "https://api.anthropic.com",
    setup: "Set ANTHROPIC_API_KEY.",
    suggested: ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"],
    hosted: true,
    listsModels: false,
    dialect: "anthropic",
    embeds: false,
  },
  google: {
    apiKeyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
    configuredBy: "apiKey",
    defaultBaseURL: "https://generativelanguage.googleapis.com",
    setup: "Set GOOGLE_GENERATIVE_AI_API_KEY.",
    suggested: ["gemini-2.5-pro", "gemini-2.5-flash"],
    hosted: true,
    listsModels: false,
    dialect: "google",
    embeds: true,
  },
  "openai-compatible": {
    apiKeyVariable: "TANDEM_OPENAI_COMPATIBLE_API_KEY",
    baseUrlVariable: {
      name: "TANDEM_OPENAI_COMPATIBLE_BASE_URL",
      example: "the server's OpenAI-compatible URL, e.g. http://localhost:8000/v1",
    },
    configuredBy: "baseURL",
    defaultBaseURL: null,
    setup: "Set TANDEM_OPENAI_COMPATIBLE_BASE_URL (and TANDEM_OPENAI_COMPATIBLE_API_KEY if the server needs one).",
    suggested: [],
    hosted: false,
    listsModels: true,
    dialect: "openai-compatible",
    embeds: true,
  },
  ollama: {
    baseUrlVariable: { name: "OLLAMA_BASE_URL", example: "a URL such as http://localhost:11434/v1" },
    configuredBy: null,
    defaultBaseURL: "http://localhost:11434/v1",
    setup: "Start Ollama, or set OLLAMA_BASE_URL to where it listens.",
    suggested: [],
    hosted: false,
    listsModels: true,
    dialect: "openai-compatible",
    embeds: true,
  },
} as const satisfies Record<string, ProviderSpec>;

export type ProviderId = keyof typeof MODEL_PROVIDERS;
export const PROVIDERS = Object.keys(MODEL_PROVIDERS) as ProviderId[];
export const EMBEDDING_PROVIDERS = PROVIDERS.filter((id) => MODEL_PROVIDERS[id].embeds);

export const providerSpec = (id: ProviderId): ProviderSpec => MODEL_PROVIDERS[id];

/** Whether `id` is `provider:model` with a provider of `among` (default: all). */
export function isModelId(id: string, among: readonly ProviderId[] = PROVIDERS): boolean {
  const colon = id.indexOf(":");
  return colon > 0 && colon < id.length - 1 && (among as readonly string[]).includes(id.slice(0, colon));
}

/**
 * A provider's connection as the environment set it (server/env/). `explicit`: its variables were
 * set; a provider that needs none (Ollama) is always connected, at its default URL otherwise.
 */
export type ProviderConnection = { apiKey: string | undefined; baseURL: string | undefined; explicit: boolean };

export type ModelsConfig = {
  /** `provider:model`; when unset, the first configured provider's suggested model. */
  defaultModel: string | undefined;
  /** The providers whose variables are set, and those that need none. */
  connections: Partial<Record<ProviderId, ProviderConnection>>;
  /** Stream on the model thread (server/agent/model-thread/) rather than the server's. */
  thread: boolean;
};

/** `baseURL`: an OpenAI-compatible endpoint serving this model, instead of its provider's. */
export type EmbeddingConfig = { model: string; baseURL: string | undefined; apiKey: string | undefined };

/** Where a provider's requests go: its configured URL, else its default; null when it has neither. */
export function baseUrlOf(config: ModelsConfig, id: ProviderId): string | null {
  return config.connections[id]?.baseURL ?? providerSpec(id).defaultBaseURL;
}

/** The variable to check when a provider refuses: its key, or for a keyless one its URL. */
export function keyVariableOf(id: ProviderId): string {
  const spec = providerSpec(id);
  return spec.apiKeyVariable ?? spec.baseUrlVariable?.name ?? id;
}
