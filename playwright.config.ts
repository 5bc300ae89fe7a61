import { readdirSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium";
import { OIDC_CLIENT } from "./e2e/fixtures/oidc-client";

// scripts/e2e.mjs picks a free port and a temporary data directory, then runs Playwright, which
// starts a fresh Tandem (embedded Postgres and all) with `npm start` and stops it at the end.
const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
// The scripted model server (started by scripts/e2e.mjs) is the agent's only provider.
const modelPort = Number(process.env.E2E_MODEL_PORT ?? 3101);
// A system Chromium when there is one, else the one from npm (e2e/chromium.ts).
const launchOptions = await chromiumLaunchOptions();

// The first-run spec needs a server nobody has signed up on, so it runs before every other spec,
// even one run alone. The others each make the users, teams and projects they use (a spec run on
// a fresh server signs the admin up itself: e2e/pages/ide.ts), so they pass alone and in any
// order; E2E_ORDER=reverse runs them in reverse file order, each its own project, to show it.
const FIRST_RUN = "01-first-run.spec.ts";
const others =
  process.env.E2E_ORDER === "reverse"
    ? readdirSync("e2e")
        .filter((file) => file.endsWith(".spec.ts") && file !== FIRST_RUN)
        .sort()
        .reverse()
        .map((file) => ({ name: file, testMatch: file, dependencies: ["first-run"] }))
    : [{ name: "specs", testMatch: "*.spec.ts", testIgnore: FIRST_RUN, dependencies: ["first-run"] }];

export default defineConfig({
  testDir: "e2e",
  projects: [{ name: "first-run", testMatch: FIRST_RUN }, ...others],
  // Specs share one server (and the scripted model server), one test at a time.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  outputDir: "test-results/e2e",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    viewport: { width: 1280, height: 800 },
    launchOptions,
  },
  webServer: {
    command: "node scripts/start.mjs",
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      TANDEM_DATA_DIR: process.env.E2E_DATA_DIR ?? ".tandem-e2e",
      TANDEM_IMPORT_ROOTS: process.env.E2E_IMPORT_ROOT ?? "",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
      TANDEM_MODEL: "openai-compatible:scripted",
      // A language server added by configuration (e2e/11-language.spec.ts): Tandem's own
      // typescript-language-server a second time, serving *.mts by its glob.
      TANDEM_LANGUAGE_SERVERS: JSON.stringify({
        mts: {
          command: ["node", "{package:typescript-language-server}/lib/cli.mjs", "--stdio"],
          files: ["*.mts"],
          languageId: "typescript",
          packages: ["typescript-language-server", "typescript"],
        },
      }),
      // Test servers the sandboxed processes reach through the egress proxy on loopback, by these names only
      // (e2e/11-git.spec.ts, e2e/11-network.spec.ts).
      TANDEM_EGRESS_TEST_HOSTS: "git.test=127.0.0.1,registry.e2e.test=127.0.0.1",
      // The test git server's host (by name through the proxy, or loopback unsandboxed) is a GitHub
      // whose pulls endpoint e2e/11-git.spec.ts serves on this port.
      ...(process.env.E2E_FORGE_PORT
        ? {
            TANDEM_GIT_FORGES: ["git.test", "127.0.0.1"]
              .map((host) => `${host}=github@http://127.0.0.1:${process.env.E2E_FORGE_PORT}/api/v3`)
              .join(","),
          }
        : {}),
      // Single sign-on with the OpenID provider scripts/e2e.mjs starts (e2e/05-single-sign-on.spec.ts):
      // people of acme.test get an account at their first sign-in; the groups platform and
      // platform-leads make them a member or admin of the team Platform.
      ...(process.env.E2E_OIDC_PORT
        ? {
            TANDEM_OIDC_ISSUER: `http://127.0.0.1:${process.env.E2E_OIDC_PORT}`,
            TANDEM_OIDC_CLIENT_ID: OIDC_CLIENT.id,
            TANDEM_OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
            TANDEM_OIDC_NAME: OIDC_CLIENT.name,
            TANDEM_OIDC_ALLOWED_DOMAINS: "acme.test",
            TANDEM_OIDC_TEAM_GROUPS: "platform=Platform:member,platform-leads=Platform:admin",
            TANDEM_OIDC_ADMIN_GROUPS: "tandem-admins",
          }
        : {}),
      // The test git server speaks plain http on loopback; tokens may go to it.
      TANDEM_GIT_ALLOW_HTTP: "true",
      // scripts/e2e.mjs sets it where bubblewrap does not work.
      ...(process.env.E2E_SANDBOX ? { TANDEM_SANDBOX: process.env.E2E_SANDBOX } : {}),
    },
  },
});
