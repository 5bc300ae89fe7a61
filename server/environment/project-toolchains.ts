import { TOOLCHAINS, VERSION_FILES, versionFromFile, type ToolchainName, type ToolchainState } from "@/lib/toolchains";
import type { ProjectToolchains } from "@/server/sandbox/sandbox";
import type { ToolchainMount } from "@/server/sandbox/launcher";
import type { ToolchainCache } from "./toolchain-cache";

// Which toolchain versions a project runs with: a project admin's setting wins, else the
// repository's own file (`.nvmrc`, `.node-version`, `.python-version`; `engines` ranges are not
// read: a range names no one version). Each process launch asks (sandbox.ts), so the answer is
// kept a few seconds; a version not yet installed is installed first, and one that cannot be
// (no such version, no registry) is left out, with the reason in `states` for the project page
// and the agent's environment block.

export type ProjectToolchainsDeps = {
  cache: ToolchainCache;
  /** The project admin's versions, null where unset. */
  settings(projectId: string): Promise<Record<ToolchainName, string | null>>;
  /** A file of the project's main tree, or null (missing, not a regular file, unreadable). */
  readFile(projectId: string, path: string): Promise<string | null>;
  log?(line: string): void;
};

const FRESH_MS = 5_000;

export type ProjectToolchainsService = ProjectToolchains & {
  states(projectId: string): Promise<ToolchainState[]>;
  /** Forgets what is kept of a project (its settings or files changed). */
  forget(projectId: string): void;
};

export function createProjectToolchains(deps: ProjectToolchainsDeps): ProjectToolchainsService {
  const kept = new Map<string, { at: number; states: Promise<ToolchainState[]> }>();

  async function wanted(projectId: string): Promise<Omit<ToolchainState, "version" | "problem">[]> {
    const settings = await deps.settings(projectId);
    const found: Omit<ToolchainState, "version" | "problem">[] = [];
    for (const name of TOOLCHAINS) {
      const set = settings[name];
      if (set) {
        found.push({ name, spec: set, from: "settings" });
        continue;
      }
      for (const file of VERSION_FILES[name]) {
        const text = await deps.readFile(projectId, file);
        const spec = text === null ? null : versionFromFile(text);
        if (text !== null) {
          if (spec) found.push({ name, spec, from: file });
          break;
        }
      }
    }
    return found;
  }

  async function resolveAll(projectId: string): Promise<ToolchainState[]> {
    return Promise.all(
      (await wanted(projectId)).map(async (want): Promise<ToolchainState> => {
        try {
          const version = await deps.cache.resolve(want.name, want.spec);
          await deps.cache.install(want.name, version);
          return { ...want, version, problem: null };
        } catch (error) {
          const problem = (error as Error).message;
          deps.log?.(`toolchain ${want.name} ${want.spec} of project ${projectId}: ${problem}`);
          return { ...want, version: null, problem };
        }
      }),
    );
  }

  function states(projectId: string): Promise<ToolchainState[]> {
    const hit = kept.get(projectId);
    if (hit && Date.now() - hit.at < FRESH_MS) return hit.states;
    const fresh = resolveAll(projectId);
    kept.set(projectId, { at: Date.now(), states: fresh });
    fresh.catch(() => kept.delete(projectId));
    return fresh;
  }

  return {
    states,
    forget: (projectId) => kept.delete(projectId),
    async forProject(projectId): Promise<ToolchainMount[]> {
      const mounts: ToolchainMount[] = [];
      for (const state of await states(projectId)) {
        const dir = state.version ? deps.cache.installed(state.name, state.version) : null;
        if (dir) mounts.push({ name: state.name, dir });
      }
      return mounts;
    },
  };
}
