import type { Services } from "@/server/api/trpc";
import { createAuth } from "@/server/auth/auth";
import { loadOrCreateSecret } from "@/server/auth/secret";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { isLoopbackHost, type Config } from "@/server/env";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { createTerminalService } from "@/server/terminal";
import { bwrapAvailable, type SandboxMode } from "@/server/workspace/sandbox";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createExtensions } from "@/server/services/extensions";
import { createShellSession } from "@/server/workspace/shell-session";
import { createModelRegistry } from "@/server/agent/providers";
import { createInProcessBus } from "@/server/bus/session-bus";
import { createPresence } from "@/server/bus/presence";
import { createLinkRevocations } from "@/server/bus/link-revocations";
import { createRateLimits } from "@/server/http/rate-limit";
import { credentialCipher } from "@/server/git/credential-cipher";
import { createProjectGit } from "@/server/services/project-git";
import { resealGitCredentials } from "@/server/services/git-credentials";

export class StartupError extends Error {}

export async function resolveSandboxMode(config: Config): Promise<SandboxMode> {
  const available = await bwrapAvailable();
  if (config.sandbox === "bwrap" && !available) {
    throw new StartupError(
      "TANDEM_SANDBOX=bwrap but bubblewrap does not work here. Install it (Debian/Ubuntu: `apt-get install bubblewrap`).",
    );
  }
  const mode = config.sandbox ?? (available ? "bwrap" : "none");
  if (mode === "none" && !isLoopbackHost(config.host)) {
    throw new StartupError(
      `Refusing to run terminals without a sandbox while listening on ${config.host}. ` +
        "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or listen on loopback only (HOST=127.0.0.1).",
    );
  }
  return mode;
}

// Builds everything the API needs, starting the embedded database when DATABASE_URL is unset.
export async function createServices(config: Config, log: (line: string) => void = console.log) {
  const sandboxMode = await resolveSandboxMode(config);
  if (sandboxMode === "none") log("warning: terminals run WITHOUT a sandbox (bubblewrap not available)");
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  try {
    const applied = await migrate(databaseUrl);
    if (applied.length) log(`applied migrations: ${applied.join(", ")}`);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const db = createDb(databaseUrl);
  const secret = await loadOrCreateSecret(config.dataDir, config.authSecret);
  const auth = createAuth({ db, secret, publicUrl: config.publicUrl, secureCookies: config.publicUrl?.startsWith("https:") ?? false });
  const files = createProjectFiles(config.dataDir, config.importRoots);
  const terminals = createTerminalService({ sandboxMode });
  const models = createModelRegistry(config.models);
  const checkpoints = createCheckpointStores(config.dataDir, files);
  const extensions = createExtensions({ config, db, databaseUrl, sandbox: { mode: sandboxMode, allowNetwork: false }, openWorkspace: (projectId) => files.open(projectId) });
  const agent = createAgentRuntime({
    db,
    extensions: extensions.agent,
    bus: createInProcessBus(),
    models,
    openWorkspace: (projectId) => files.open(projectId),
    checkpoints,
    shell: ({ workspace, sessionId }) => createShellSession({ workspace, sessionId, mode: sandboxMode, allowNetwork: false }),
    sandbox: { mode: sandboxMode, allowNetwork: false },
  });
  const interrupted = await agent.recover();
  if (interrupted.length) log(`marked ${interrupted.length} agent session(s) interrupted after a restart`);
  await extensions.attach(agent);
  const gitCipher = credentialCipher(secret, config.previousSecrets);
  const resealed = await resealGitCredentials(db, gitCipher);
  if (resealed) log(`sealed ${resealed} stored git credential(s) again under the current secret`);
  const git = createProjectGit({ db, files, sandbox: { mode: sandboxMode }, cipher: gitCipher, checkpoints, publicUrl: config.publicUrl });
  const live = { presence: createPresence(), linkRevocations: createLinkRevocations(), limits: createRateLimits() };
  const services: Services = { ...live, config, db, auth, files, terminals, agent, models, checkpoints, extensions, git, gitCipher };
  return {
    services,
    sandboxMode,
    async dispose() {
      await extensions.dispose();
      await agent.dispose();
      terminals.disposeAll();
      await db.$disconnect();
      await embedded?.stop();
    },
  };
}
