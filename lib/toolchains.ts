import { z } from "zod";

// Toolchain versions a project runs with (server/environment/): what a project admin may set, and
// what a repository's own files may name (`.nvmrc`, `.node-version`, `.python-version`). Both are
// checked here before anything is looked up: a version is digits and dots, nothing else.

export const TOOLCHAINS = ["node", "python"] as const;
export type ToolchainName = (typeof TOOLCHAINS)[number];

/** Where a toolchain's folder is bound inside the sandbox; its `bin` goes first on the PATH. */
export const TOOLCHAIN_MOUNT = "/opt/tandem/toolchains";

export const toolchainVersion = z
  .string()
  .trim()
  .transform((v) => v.replace(/^v/, ""))
  .pipe(z.string().regex(/^\d{1,3}(\.\d{1,4}){0,2}$/, "a version such as 22, 22.12 or 22.12.0"));

/** A version from a repository file: its first line, `v` dropped; null when it is not one (an alias like `lts/*`). */
export function versionFromFile(text: string): string | null {
  const parsed = toolchainVersion.safeParse(text.split(/\r?\n/, 1)[0] ?? "");
  return parsed.success ? parsed.data : null;
}

/** The repository files each toolchain's version is read from, first found wins. */
export const VERSION_FILES: Record<ToolchainName, readonly string[]> = {
  node: [".nvmrc", ".node-version"],
  python: [".python-version"],
};

/** A project's setup script, in the settings or the repository's `.tandem/setup.sh`. */
export const SETUP_SCRIPT_FILE = ".tandem/setup.sh";
export const setupScript = z.string().max(20_000, "Keep the setup script under 20,000 characters");

/** A toolchain a project asks for, and what became of it. */
export type ToolchainState = {
  name: ToolchainName;
  /** What was asked for: `22`, `22.12.0`, `3.11`. */
  spec: string;
  /** `settings`, or the repository file it was read from. */
  from: string;
  /** The exact version installed and on the PATH, or null when it could not be. */
  version: string | null;
  /** Why it is not on the PATH, or null. */
  problem: string | null;
};

/** The last setup run as the project page and the agent see it. */
export type SetupRunState = {
  status: "running" | "succeeded" | "failed";
  exitCode: number | null;
  source: "settings" | "repository";
  trigger: "clone" | "rebuild";
  startedAt: Date;
  endedAt: Date | null;
  /** The end of what it printed. */
  output: string;
};

/** What the agent's environment block says of the project's environment. */
export type EnvironmentFacts = {
  toolchains: ToolchainState[];
  setup: Omit<SetupRunState, "output"> | null;
};
