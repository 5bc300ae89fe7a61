import path from "node:path";
import { pathMatches } from "@/lib/glob-match";
import type { LanguagePlugins } from "@/lib/language-plugins";

/**
 * Which language server serves which files. Adding a language is a new entry here: the npm
 * packages it needs (bound read-only into the sandbox), the command, and its initialization options.
 *
 * Placeholders in `command` and in string values of `initializationOptions`:
 * - `{package:NAME}`: the bundled package's folder (inside the sandbox: under SERVER_PACKAGES_DIR);
 * - `{workspaceOr:NAME}`: the workspace's own node_modules/NAME when it has one, else the bundled one;
 * - `{memoryMb}`: the memory limit of one server.
 */
export type LanguageServerSpec = {
  /** Names one server; one process per project and id. */
  id: string;
  /** Monaco/LSP language ids this server answers for. */
  languages: readonly string[];
  /** File extensions (with the dot) that belong to those languages. */
  extensions: Readonly<Record<string, string>>;
  /** npm packages (with their dependencies) the server runs from. */
  packages: readonly string[];
  command: readonly string[];
  initializationOptions?: Record<string, unknown>;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
  /** A server added by configuration: globs of the files it serves, opened as `languages[0]`. */
  files?: readonly string[];
};

/** Where the bundled packages appear inside the sandbox. */
export const SERVER_PACKAGES_DIR = "/opt/tandem/language/node_modules";

const NODE = ["node", "--max-old-space-size={memoryMb}"];

export const LANGUAGE_SERVERS: readonly LanguageServerSpec[] = [
  {
    id: "typescript",
    languages: ["typescript", "javascript", "typescriptreact", "javascriptreact"],
    extensions: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    packages: ["typescript-language-server", "typescript"],
    command: [...NODE, "{package:typescript-language-server}/lib/cli.mjs", "--stdio"],
    initializationOptions: {
      // Without the syntax-only server, answers wait for the project to load instead of being guesses
      // from one file (a definition that stops at the import).
      tsserver: { path: "{workspaceOr:typescript}/lib", useSyntaxServer: "never" },
      maxTsServerMemory: "{memoryMb}",
      // Type acquisition downloads @types packages: the sandbox has no network, and it must not try.
      disableAutomaticTypingAcquisition: true,
      hostInfo: "tandem",
    },
  },
  {
    id: "python",
    languages: ["python"],
    extensions: { ".py": "python", ".pyi": "python" },
    packages: ["pyright"],
    command: [...NODE, "{package:pyright}/langserver.index.js", "--stdio"],
    settings: {
      python: { analysis: { diagnosticMode: "openFilesOnly", autoSearchPaths: true, useLibraryCodeForTypes: true } },
    },
  },
  {
    id: "json",
    languages: ["json", "jsonc"],
    extensions: { ".json": "json", ".jsonc": "jsonc" },
    packages: ["vscode-langservers-extracted"],
    command: [
      ...NODE,
      "{package:vscode-langservers-extracted}/lib/json-language-server/node/jsonServerMain.js",
      "--stdio",
    ],
    initializationOptions: { provideFormatter: true },
  },
  {
    id: "css",
    languages: ["css", "scss", "less"],
    extensions: { ".css": "css", ".scss": "scss", ".less": "less" },
    packages: ["vscode-langservers-extracted"],
    command: [
      ...NODE,
      "{package:vscode-langservers-extracted}/lib/css-language-server/node/cssServerMain.js",
      "--stdio",
    ],
    initializationOptions: { provideFormatter: true },
    settings: { css: { validate: true }, scss: { validate: true }, less: { validate: true } },
  },
  {
    id: "html",
    languages: ["html"],
    extensions: { ".html": "html", ".htm": "html" },
    packages: ["vscode-langservers-extracted"],
    command: [
      ...NODE,
      "{package:vscode-langservers-extracted}/lib/html-language-server/node/htmlServerMain.js",
      "--stdio",
    ],
    initializationOptions: { provideFormatter: true, embeddedLanguages: { css: true, javascript: true } },
  },
];

/** The servers of one project: the configured ones first (they take the files they name), then the built-in ones. */
export class LanguageRegistry {
  readonly specs: readonly LanguageServerSpec[];

  constructor(plugins: readonly LanguageServerSpec[] = []) {
    const own = new Set(plugins.map((p) => p.id));
    this.specs = [...plugins, ...LANGUAGE_SERVERS.filter((s) => !own.has(s.id))];
  }

  spec(id: string): LanguageServerSpec | undefined {
    return this.specs.find((spec) => spec.id === id);
  }

  languageOf(file: string): { spec: LanguageServerSpec; languageId: string } | undefined {
    const extension = path.extname(file).toLowerCase();
    for (const spec of this.specs) {
      if (spec.files) {
        if (spec.files.some((glob) => pathMatches(glob, file))) return { spec, languageId: spec.languages[0]! };
        continue;
      }
      const languageId = spec.extensions[extension];
      if (languageId) return { spec, languageId };
    }
    return undefined;
  }

  /** What the registry covers, for a message: extensions and globs. */
  covered(): string {
    return this.specs.flatMap((s) => s.files ?? Object.keys(s.extensions)).join(" ");
  }
}

/** Configured servers as specs; a plugin may take a built-in's name to replace it. */
export function pluginSpecs(plugins: LanguagePlugins): LanguageServerSpec[] {
  return Object.entries(plugins).map(([id, plugin]) => ({
    id,
    languages: [plugin.languageId ?? id],
    extensions: {},
    files: plugin.files,
    packages: plugin.packages ?? [],
    command: plugin.command,
    ...(plugin.initializationOptions ? { initializationOptions: plugin.initializationOptions } : {}),
    ...(plugin.settings ? { settings: plugin.settings } : {}),
  }));
}
