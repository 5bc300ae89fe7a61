import { z } from "zod";

// Language servers added by configuration, beside the built-in ones (server/language/registry.ts):
// a project's admins in its settings, or the server's admin in TANDEM_LANGUAGE_SERVERS. Each names
// its command (run in the project's sandbox, with no network, as the built-in servers are) and the
// files it serves, by glob. `{ "go": { "command": ["gopls"], "files": ["*.go"] } }`.

const id = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,30}$/, "a name of lowercase letters, digits and -, starting with a letter");

export const languagePluginSchema = z.strictObject({
  /** argv: a program on the sandbox's PATH (/usr/bin...) or a path in the workspace, and its arguments. */
  command: z.array(z.string().min(1).max(500)).min(1).max(30),
  /** Globs of the files it serves: `*.go` (a name anywhere), `src/**\/*.rs` (a path). */
  files: z.array(z.string().min(1).max(200)).min(1).max(30),
  /** The LSP language id its files are opened with; default: the plugin's name. */
  languageId: z.string().min(1).max(50).optional(),
  initializationOptions: z.record(z.string(), z.unknown()).optional(),
  /** Answers to `workspace/configuration`, by section. */
  settings: z.record(z.string(), z.unknown()).optional(),
  /** Server admins only: npm packages of Tandem's install the command runs from (`{package:NAME}` in it). */
  packages: z.array(z.string().min(1).max(214)).max(10).optional(),
});

export type LanguagePlugin = z.infer<typeof languagePluginSchema>;

export const languagePluginsSchema = z
  .record(id, languagePluginSchema)
  .refine((all) => Object.keys(all).length <= 20, "at most 20 language servers");

export type LanguagePlugins = z.infer<typeof languagePluginsSchema>;

/** A project's plugins as its admins write them: JSON text; packages are the server admin's only. */
export function parseProjectLanguagePlugins(
  text: string,
): { ok: true; plugins: LanguagePlugins } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = languagePluginsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, problem: `${issue.path.join(".") || "(servers)"}: ${issue.message}` };
  }
  const withPackages = Object.entries(parsed.data).find(([, p]) => p.packages);
  if (withPackages)
    return {
      ok: false,
      problem: `${withPackages[0]}.packages: only the server's admin binds Tandem's own packages (TANDEM_LANGUAGE_SERVERS)`,
    };
  return { ok: true, plugins: parsed.data };
}
