import path from "node:path";
import type { Db } from "@/server/db/client";
import {
  getEnvironmentSettings,
  getSetupRun,
  saveEnvironmentSettings,
  saveSetupRun,
  type EnvironmentSettings,
} from "@/server/db/repositories/project-environment";
import { SETUP_SCRIPT_FILE, type SetupRunState, type ToolchainState } from "@/lib/toolchains";
import { createToolchainCache } from "@/server/environment/toolchain-cache";
import { createProjectToolchains, type ProjectToolchainsService } from "@/server/environment/project-toolchains";
import type { ProcessSecrets } from "@/server/secrets/redactor";
import { createSetupRuns, NoSetupScriptError, type SetupRuns, type SetupScript } from "@/server/environment/setup-runs";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Workspace } from "@/server/workspace";

// A project's environment (docs/environments.md): the toolchains its processes get and its setup
// script. Toolchains are built before the sandbox (which asks them at every launch), the setup
// runs after it (they run in it).

type Files = { open(projectId: string): Promise<Workspace>; pathOf(projectId: string): string };

/** How big a repository's version file or setup script may be before it is not read. */
const MAX_VERSION_FILE = 256;
const MAX_SCRIPT = 20_000;

/** `cacheDir`: where toolchains are installed, `<data dir>/toolchains` by default. */
export function createToolchains(deps: {
  db: Db;
  files: Files;
  dataDir: string;
  registry: string;
  cacheDir?: string;
  log?(line: string): void;
}) {
  const root = deps.cacheDir ?? path.join(deps.dataDir, "toolchains");
  const cache = createToolchainCache({ root, registry: deps.registry });
  return createProjectToolchains({
    cache,
    settings: async (projectId) => {
      const settings = await getEnvironmentSettings(deps.db, projectId);
      return { node: settings.nodeVersion, python: settings.pythonVersion };
    },
    readFile: (projectId, file) => readSmall(deps.files, projectId, file, MAX_VERSION_FILE),
    log: deps.log,
  });
}

/** The file's text when it is a regular file of the main tree under `max` bytes, else null. */
async function readSmall(files: Files, projectId: string, file: string, max: number): Promise<string | null> {
  try {
    return (await (await files.open(projectId)).readBytes(file, max)).toString("utf8");
  } catch {
    return null;
  }
}

export type ProjectEnvironment = ReturnType<typeof createProjectEnvironment>;

export function createProjectEnvironment(deps: {
  db: Db;
  files: Files;
  sandbox: Sandbox;
  toolchains: ProjectToolchainsService;
  /** The project's and its team's secrets, for the setup script (server/services/secrets.ts). */
  secrets?(projectId: string): Promise<ProcessSecrets>;
  log?(line: string): void;
}) {
  const { db, files, toolchains } = deps;

  async function script(projectId: string): Promise<SetupScript | null> {
    const settings = await getEnvironmentSettings(db, projectId);
    // `bash -e`: the run fails at the first command that fails, as CI runners do.
    if (settings.setupScript?.trim())
      return { source: "settings", command: ["/bin/bash", "-ec", settings.setupScript] };
    const planted = await readSmall(files, projectId, SETUP_SCRIPT_FILE, MAX_SCRIPT);
    // The repository's script is run by its path inside the sandbox, never read into a command here.
    return planted === null ? null : { source: "repository", command: ["/bin/bash", "-e", SETUP_SCRIPT_FILE] };
  }

  const setup: SetupRuns = createSetupRuns({
    sandbox: deps.sandbox,
    script,
    secrets: deps.secrets,
    root: async (projectId) => files.pathOf(projectId),
    async prepare(projectId) {
      toolchains.forget(projectId);
      return (await toolchains.states(projectId)).map(describeToolchain);
    },
    save: (projectId, run) => saveSetupRun(db, projectId, run),
    load: (projectId) => getSetupRun(db, projectId),
    log: deps.log,
  });

  return {
    setup,
    toolchains,

    /** Everything the project page shows. */
    async status(projectId: string) {
      const [settings, states, run, planted] = await Promise.all([
        getEnvironmentSettings(db, projectId),
        toolchains.states(projectId),
        setup.status(projectId),
        readSmall(files, projectId, SETUP_SCRIPT_FILE, MAX_SCRIPT),
      ]);
      return { settings, toolchains: states, run, repositoryScript: planted !== null };
    },

    async save(projectId: string, settings: EnvironmentSettings): Promise<EnvironmentSettings> {
      const saved = await saveEnvironmentSettings(db, projectId, settings);
      toolchains.forget(projectId);
      return saved;
    },

    /** What the agent's environment block says: the toolchains and how the last setup ended. */
    async facts(
      projectId: string,
    ): Promise<{ toolchains: ToolchainState[]; setup: Omit<SetupRunState, "output"> | null }> {
      const [states, run] = await Promise.all([toolchains.states(projectId), setup.status(projectId)]);
      if (!run) return { toolchains: states, setup: null };
      const { output: _output, ...rest } = run;
      return { toolchains: states, setup: rest };
    },

    /** After a clone: the toolchains installed, and the setup run when the repository has a script. */
    async afterClone(projectId: string): Promise<void> {
      try {
        await setup.start(projectId, "clone");
      } catch (error) {
        if (!(error instanceof NoSetupScriptError)) throw error;
        // No script: the toolchains are made ready for the first terminal all the same.
        await toolchains.states(projectId);
      }
    },
  };
}

function describeToolchain(state: ToolchainState): string {
  const from = state.from === "settings" ? "the project settings" : state.from;
  if (state.version) return `[tandem] ${state.name} ${state.version} (from ${from}) is first on the PATH`;
  return `[tandem] ${state.name} ${state.spec} (from ${from}) is not available: ${state.problem}`;
}
