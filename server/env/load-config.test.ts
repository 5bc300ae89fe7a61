import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./load-config";

describe("loadConfig", () => {
  it("uses embedded defaults when nothing is set", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir.endsWith(".tandem")).toBe(true);
  });

  it("names the bad variable", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ TANDEM_SANDBOX: "docker" })).toThrow(/TANDEM_SANDBOX/);
    expect(() => loadConfig({ BETTER_AUTH_SECRET: "short" })).toThrow(/BETTER_AUTH_SECRET/);
  });

  it("runs as one of a cluster only on a shared DATABASE_URL", () => {
    expect(loadConfig({}).cluster).toBe(false);
    expect(() => loadConfig({ TANDEM_CLUSTER: "1" })).toThrow(/TANDEM_CLUSTER: .*DATABASE_URL/);
    expect(loadConfig({ TANDEM_CLUSTER: "true", DATABASE_URL: "postgres://db/tandem" }).cluster).toBe(true);
  });

  it("reads the internal hosts an admin allows, and names a bad one", () => {
    expect(
      loadConfig({ TANDEM_INTERNAL_HOSTS: "git.office.lan, *.corp.example,10.20.0.0/16, [fd00::7]" }).internalHosts,
    ).toEqual(["git.office.lan", "*.corp.example", "10.20.0.0/16", "fd00::7"]);
    expect(() => loadConfig({ TANDEM_INTERNAL_HOSTS: "git.office.lan,10.20.0.0/99" })).toThrow(
      /TANDEM_INTERNAL_HOSTS: '10\.20\.0\.0\/99' must be a host name/,
    );
  });

  it("configures single sign-on only whole, and passwords off only beside it", () => {
    expect(loadConfig({}).sso).toBeUndefined();
    expect(loadConfig({}).passwordSignIn).toBe(true);
    const sso = {
      TANDEM_OIDC_ISSUER: "https://id.acme.com/realms/eng/",
      TANDEM_OIDC_CLIENT_ID: "tandem",
      TANDEM_OIDC_CLIENT_SECRET: "s3cret",
      TANDEM_OIDC_ALLOWED_DOMAINS: "Acme.com, @acme.de",
    };
    expect(loadConfig(sso).sso).toEqual({
      issuer: "https://id.acme.com/realms/eng",
      clientId: "tandem",
      clientSecret: "s3cret",
      name: "single sign-on",
      allowedDomains: ["acme.com", "acme.de"],
      groupsClaim: "groups",
      teamGroups: [],
      adminGroups: [],
    });
    const grouped = loadConfig({
      ...sso,
      TANDEM_OIDC_GROUPS_CLAIM: "roles",
      TANDEM_OIDC_TEAM_GROUPS: "platform=Platform:member, leads=Platform:admin",
      TANDEM_OIDC_ADMIN_GROUPS: "tandem-admins, ops",
    }).sso;
    expect(grouped).toMatchObject({
      groupsClaim: "roles",
      teamGroups: [
        { group: "platform", team: "Platform", role: "member" },
        { group: "leads", team: "Platform", role: "admin" },
      ],
      adminGroups: ["tandem-admins", "ops"],
    });
    expect(() => loadConfig({ ...sso, TANDEM_OIDC_TEAM_GROUPS: "platform=Platform:boss" })).toThrow(
      /TANDEM_OIDC_TEAM_GROUPS.*role one of/s,
    );
    expect(loadConfig({ ...sso, TANDEM_PASSWORD_SIGN_IN: "false" }).passwordSignIn).toBe(false);
    expect(() => loadConfig({ TANDEM_OIDC_ISSUER: "https://id.acme.com" })).toThrow(/TANDEM_OIDC_CLIENT_ID/);
    expect(() => loadConfig({ TANDEM_PASSWORD_SIGN_IN: "false" })).toThrow(/TANDEM_PASSWORD_SIGN_IN/);
    expect(() => loadConfig({ ...sso, TANDEM_OIDC_ISSUER: "ftp://id" })).toThrow(/TANDEM_OIDC_ISSUER/);
  });

  it("treats an empty DATABASE_URL as unset", () => {
    expect(loadConfig({ DATABASE_URL: "" }).databaseUrl).toBeUndefined();
  });

  it("configures web search from SearXNG, Brave or Tavily variables, TANDEM_WEB_SEARCH choosing among several", () => {
    expect(loadConfig({}).webSearch).toBeUndefined();
    expect(loadConfig({ TANDEM_SEARXNG_URL: "http://searx.internal:8080" }).webSearch).toEqual({
      kind: "searxng",
      url: "http://searx.internal:8080",
    });
    expect(
      loadConfig({ BRAVE_SEARCH_API_KEY: "b", TAVILY_API_KEY: "t", TANDEM_WEB_SEARCH: "tavily" }).webSearch,
    ).toEqual({ kind: "tavily", apiKey: "t" });
    expect(() => loadConfig({ TANDEM_WEB_SEARCH: "brave" })).toThrow("BRAVE_SEARCH_API_KEY");
    // DuckDuckGo needs no key: naming it is enough, and it wins over the others when named.
    expect(loadConfig({ TANDEM_WEB_SEARCH: "duckduckgo", TAVILY_API_KEY: "t" }).webSearch).toEqual({
      kind: "duckduckgo",
    });
    expect(() => loadConfig({ TANDEM_SEARXNG_URL: "ftp://x" })).toThrow("TANDEM_SEARXNG_URL");
  });

  it("shares live events through Postgres by default only with an external database (the embedded one serves one instance)", () => {
    expect(loadConfig({}).bus).toBe("memory");
    expect(loadConfig({ DATABASE_URL: "postgres://db.internal/tandem" }).bus).toBe("postgres");
    expect(loadConfig({ DATABASE_URL: "postgres://db.internal/tandem", TANDEM_BUS: "memory" }).bus).toBe("memory");
    expect(() => loadConfig({ TANDEM_BUS: "redis" })).toThrow(/TANDEM_BUS/);
  });

  it("configures the embedding model of knowledge search, and refuses a provider without embeddings", () => {
    expect(loadConfig({}).embedding).toBeUndefined();
    expect(loadConfig({ TANDEM_EMBEDDING_MODEL: "openai:text-embedding-3-small" }).embedding).toEqual({
      model: "openai:text-embedding-3-small",
      baseURL: undefined,
      apiKey: undefined,
    });
    expect(
      loadConfig({
        TANDEM_EMBEDDING_MODEL: "openai-compatible:bge-m3",
        TANDEM_EMBEDDING_BASE_URL: "http://localhost:8080/v1",
        TANDEM_EMBEDDING_API_KEY: "k",
      }).embedding,
    ).toEqual({
      model: "openai-compatible:bge-m3",
      baseURL: "http://localhost:8080/v1",
      apiKey: "k",
    });
    expect(() => loadConfig({ TANDEM_EMBEDDING_MODEL: "anthropic:claude-sonnet-4-5" })).toThrow(
      /TANDEM_EMBEDDING_MODEL: must be provider:model with provider one of openai, google/,
    );
    expect(() => loadConfig({ TANDEM_EMBEDDING_MODEL: "openai:x", TANDEM_EMBEDDING_BASE_URL: "not a url" })).toThrow(
      /TANDEM_EMBEDDING_BASE_URL/,
    );
  });

  it("connects each model provider its variables set up (Ollama always, at its default URL unless set)", () => {
    expect(loadConfig({}).models.connections).toEqual({
      ollama: { apiKey: undefined, baseURL: undefined, explicit: false },
    });
    const all = loadConfig({
      OPENAI_API_KEY: "sk-o",
      OPENAI_BASE_URL: "https://proxy.example/v1",
      ANTHROPIC_API_KEY: "sk-a",
      GOOGLE_GENERATIVE_AI_API_KEY: "g",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: "http://localhost:8000/v1",
      TANDEM_OPENAI_COMPATIBLE_API_KEY: "c",
      OLLAMA_BASE_URL: "http://gpu:11434/v1",
      TANDEM_MODEL: "ollama:qwen3:8b",
    }).models;
    expect(all.defaultModel).toBe("ollama:qwen3:8b");
    expect(all.connections).toEqual({
      openai: { apiKey: "sk-o", baseURL: "https://proxy.example/v1", explicit: true },
      anthropic: { apiKey: "sk-a", baseURL: undefined, explicit: true },
      google: { apiKey: "g", baseURL: undefined, explicit: true },
      "openai-compatible": { apiKey: "c", baseURL: "http://localhost:8000/v1", explicit: true },
      ollama: { apiKey: undefined, baseURL: "http://gpu:11434/v1", explicit: true },
    });
    // A key without its provider's URL, or a URL alone where a key is needed, sets nothing up.
    expect(
      loadConfig({ TANDEM_OPENAI_COMPATIBLE_API_KEY: "c", OPENAI_BASE_URL: "https://x/v1" }).models.connections,
    ).toEqual({ ollama: { apiKey: undefined, baseURL: undefined, explicit: false } });
    expect(() => loadConfig({ OLLAMA_BASE_URL: "gpu" })).toThrow(
      /OLLAMA_BASE_URL: must be a URL such as http:\/\/localhost:11434\/v1/,
    );
    expect(() => loadConfig({ TANDEM_MODEL: "mistral:large" })).toThrow(
      /TANDEM_MODEL: must be provider:model with provider one of openai, anthropic, google, openai-compatible, ollama/,
    );
    // Every bad variable is named at once, the providers' own among the rest.
    expect(() => loadConfig({ TANDEM_MODEL: "mistral:large", OLLAMA_BASE_URL: "x" })).toThrow(
      /TANDEM_MODEL: .*\n {2}OLLAMA_BASE_URL: /,
    );
  });
});
