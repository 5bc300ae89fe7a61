import { composeServices } from "@/server/compose-services";
import type { Forges } from "@/lib/git-forges";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Context } from "@/server/api/context";
import type { BudgetNotices } from "@/server/services/spending";
import { loadConfig } from "@/server/env/load-config";
import { createTestDatabase } from "./database";
import type { Tool } from "@/server/tools/define-tool";
import type { EmbeddingConfig } from "@/lib/model-providers";
import type { SmtpConfig } from "@/server/env/config";
import { defaultSandboxHost, type SandboxHost, type SandboxMode } from "@/server/sandbox/launcher";
import { treeRoots } from "@/server/sandbox/tree-roots";
import { createDiskBudget } from "@/server/sandbox/disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import type { LanguagePlugins } from "@/lib/language-plugins";

// The API's services on a fresh database and data directory, for integration tests.
// `modelBaseUrl` points the `openai-compatible` provider at a scripted model server
// (e2e/fixtures/model-server) and makes `openai-compatible:scripted` the default model;
// `tools` replaces the registry's core tools for the agent. `extensions` adds MCP, discovery,
// knowledge, the scheduler (polling every `schedulerPollingSeconds`) and mail (with `smtp`).
// `mcpAllowHosts` is TANDEM_MCP_ALLOW_HOSTS: remote MCP hosts allowed on loopback or private addresses.
export type TestExtensionOptions = {
  schedulerPollingSeconds?: number;
  smtp?: SmtpConfig;
  deferToolsOver?: number;
  embedding?: EmbeddingConfig;
  mcpAllowHosts?: string[];
  /** TANDEM_GIT_FORGES: github_api and gitlab_api reach these forges with people's stored tokens. */
  forges?: Forges;
};
// `sandbox: "bwrap"` runs project processes in bubblewrap with the projects' network policies, the
// egress proxy resolving `egressTestHosts` names to their (loopback) addresses; with `installDir`
// the sandbox host is the production one (masks of install dir, data dir and home; a per-project
// uid when root), for a server "installed" in `installDir` with its data in `dataDir`.
// `diskBudgetMiB` gives every project that disk budget, measured as in production but every 200 ms.
export async function createTestServices(
  options: {
    importRoots?: string[];
    modelBaseUrl?: string;
    /** The scripted model served as Ollama (`ollama:scripted`, the default) as well as `openai-compatible:scripted`. */
    modelAsOllama?: boolean;
    tools?: readonly Tool[];
    extensions?: TestExtensionOptions;
    sandbox?: SandboxMode;
    egressTestHosts?: Map<string, string>;
    installDir?: string;
    dataDir?: string;
    /** Gives the agent the language servers' tools. */
    language?: boolean;
    /** The server admin's language servers (TANDEM_LANGUAGE_SERVERS). */
    languageServers?: LanguagePlugins;
    /** Hosts (host:port) web_fetch may reach on loopback. */
    fetchAllowHosts?: string[];
    diskBudgetMiB?: number;
    /** TANDEM_INTERNAL_HOSTS. */
    internalHosts?: string[];
    /** Runs each project's processes as a uid of its own (root only), so a workspace's processes share one network (workspace-network.ts). */
    perProjectUid?: boolean;
    /** Gives the agent its browser (a Chromium found as in production); the test starts the preview server (listenPreviews). */
    browser?: boolean;
    /** TANDEM_TOOLCHAIN_REGISTRY, and a toolchain cache kept between tests (its own under the data dir by default). */
    toolchainRegistry?: string;
    toolchainCache?: string;
    /** Gives the agent its shell (sessions' commands) without the other extensions. */
    shell?: boolean;
    /** Hosts (host:port) chat webhooks (notifications, send_message channels) may reach on loopback. */
    chatAllowHosts?: string[];
    /** The notifications' digest window and how often waiting digests are looked at. */
    digestWindowMs?: number;
    digestSweepMs?: number;
    /** Where budgets' 80% notices go (people's inboxes by default, as in production). */
    budgetNotices?: BudgetNotices;
  } = {},
) {
  const database = await createTestDatabase();
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "tandem-test-data-")));
  const extensions = options.extensions;
  // The test git servers speak plain http on loopback (server/test/git-http-server.ts).
  const config = {
    ...loadConfig({ TANDEM_DATA_DIR: dataDir, TANDEM_GIT_ALLOW_HTTP: "true" }),
    importRoots: options.importRoots ?? [],
    internalHosts: options.internalHosts ?? [],
    egressTestHosts: options.egressTestHosts ?? new Map(),
    languageServers: options.languageServers ?? {},
    ...(options.toolchainRegistry ? { toolchainRegistry: options.toolchainRegistry } : {}),
    smtp: extensions?.smtp,
    embedding: extensions?.embedding,
    mcpAllowHosts: extensions?.mcpAllowHosts ?? [],
    gitForges: extensions?.forges ?? {},
  };
  if (options.modelBaseUrl) {
    config.models = {
      ...config.models,
      defaultModel: options.modelAsOllama ? "ollama:scripted" : "openai-compatible:scripted",
      connections: {
        ...config.models.connections,
        "openai-compatible": { baseURL: options.modelBaseUrl, apiKey: "test", explicit: true },
        ...(options.modelAsOllama
          ? { ollama: { apiKey: undefined, baseURL: options.modelBaseUrl, explicit: true } }
          : {}),
      },
    };
  }
  // Unsandboxed shells get an empty home: the host's ~/.bashrc stays out of the tests (one whose
  // pyenv waited 60 s on a lock a killed shell had left kept every test terminal silent).
  const home = path.join(dataDir, "home");
  await fs.mkdir(home, { recursive: true });
  const sandboxHost: SandboxHost = options.installDir
    ? defaultSandboxHost(options.sandbox ?? "bwrap", {
        dataDir,
        installDir: options.installDir,
        limits: config.sandboxLimits,
        home,
      })
    : {
        mode: options.sandbox ?? "none",
        masks: [dataDir],
        perProjectUid: options.perProjectUid ?? false,
        limits: null,
        trees: treeRoots(dataDir),
        home,
      };
  const composed = await composeServices(
    {
      config,
      db: database.db,
      databaseUrl: database.url,
      secret: "x".repeat(32),
      sandboxHost,
      diskBudget: options.diskBudgetMiB
        ? createDiskBudget({
            budgetMiB: options.diskBudgetMiB,
            fileSizeMiB: config.sandboxLimits.fileSizeMiB,
            intervalMs: 200,
            measure: diskUsageBytes,
          })
        : undefined,
      log: () => {},
    },
    {
      extensions: extensions
        ? { schedulerPollingSeconds: extensions.schedulerPollingSeconds, deferToolsOver: extensions.deferToolsOver }
        : false,
      // Workflows run shell steps in the session's shell.
      shell: !!extensions || !!options.shell,
      languageTools: options.language ?? false,
      browser: options.browser ?? false,
      baseTools: options.tools,
      maxRetries: 2,
      fetchAllowHosts: options.fetchAllowHosts,
      chatAllowHosts: options.chatAllowHosts,
      toolchainCache: options.toolchainCache,
      linkBase: "http://tandem.test",
      digestWindowMs: options.digestWindowMs,
      digestSweepMs: options.digestSweepMs,
      budgetNotices: options.budgetNotices,
    },
  );
  const { services } = composed;
  await composed.extensions?.attach(services.agent);

  let userCount = 0;
  return {
    services,
    dataDir,
    /** For a test's own connection (locks, pg_stat_activity). */
    databaseUrl: database.url,
    async createUser(role: "admin" | "user" = "user") {
      userCount += 1;
      const user = await database.db.user.create({
        data: {
          id: `user-${userCount}-${Date.now()}`,
          name: `User ${userCount}`,
          email: `u${userCount}-${Date.now()}@example.com`,
          role,
        },
        select: { id: true, email: true, name: true, role: true },
      });
      return { ...user, role } as NonNullable<Context["user"]>;
    },
    context(user: Context["user"]): Context {
      return { user, services };
    },
    bus: composed.buses.sessionBus,
    /** Waits until what sessions' events tell people is in their inboxes. */
    noticesSettled: composed.noticesSettled,
    async dispose() {
      await composed.dispose();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs a new person up through the server's own auth (a unique email each call): their login
 * cookie and id. `rememberMe: false` makes a login that using it never renews (better-auth's
 * "remember me" unticked), whose expiry a test can then set.
 */
export async function signUpPerson(
  services: { auth: { api: { signUpEmail(input: object): Promise<Response> } } },
  name: string,
  options: { rememberMe?: boolean } = {},
): Promise<{ cookie: string; id: string }> {
  const email = `${name.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const response = await services.auth.api.signUpEmail({
    body: { name, email, password: "correct-horse-battery", ...options },
    asResponse: true,
  });
  if (!response.ok) throw new Error(`sign-up of ${name} failed: ${response.status} ${await response.text()}`);
  const { user } = (await response.json()) as { user: { id: string } };
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, id: user.id };
}
