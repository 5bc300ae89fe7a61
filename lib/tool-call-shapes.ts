import { z } from "zod";
import type { ToolKind } from "./tool-display";

// The built-in tools whose calls the browser reads: their name, kind, input schema and the one
// line people see for a call. The tool (server/tools/<name>.ts) is built from its entry here, and
// the transcript's cards and approval previews (components/chat) parse the logged input with the
// same schema, so the two cannot drift (server/tools/tool-call-shapes.test.ts checks it).

type CallShape<S extends z.ZodType> = {
  name: string;
  kind: ToolKind;
  input: S;
  /** One line for people: "Edit src/app.ts", "Run npm test". */
  describe(input: z.infer<S>): string;
};
const callShape = <S extends z.ZodType>(shape: CallShape<S>): CallShape<S> => shape;

export const GREP_DEFAULT_LIMIT = 250;
export const SHELL_DEFAULT_TIMEOUT_S = 120;
export const SHELL_MAX_TIMEOUT_S = 600;
/** The longest a model may ask web_fetch to wait for one page. */
export const WEB_FETCH_MAX_TIMEOUT_MS = 90_000;

const editInput = z.object({
  path: z.string().min(1).describe("File to change: relative to the workspace root, or absolute inside it."),
  old_string: z.string().describe("The exact text to replace; empty to create a new file."),
  new_string: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one."),
});
export type EditInput = z.infer<typeof editInput>;

export const editCall = callShape({
  name: "edit",
  kind: "edit",
  input: editInput,
  describe: (input) => `Edit ${input.path}`,
});

export const multiEditCall = callShape({
  name: "multi_edit",
  kind: "edit",
  input: z.object({ edits: z.array(editInput).min(1).max(200).describe("The edits, applied in order.") }),
  describe: (input) => {
    const files = [...new Set(input.edits.map((e) => e.path))];
    return files.length === 1
      ? `Edit ${files[0]} (${input.edits.length} changes)`
      : `Edit ${files.length} files (${input.edits.length} changes)`;
  },
});

export const writeFileCall = callShape({
  name: "write_file",
  kind: "edit",
  input: z.object({
    path: z.string().min(1).describe("File to write: relative to the workspace root, or absolute inside it."),
    content: z.string().describe("The complete new content of the file."),
  }),
  describe: (input) => `Write ${input.path}`,
});

export const shellCall = callShape({
  name: "shell",
  kind: "execute",
  input: z.object({
    command: z.string().min(1).describe("The bash command to run."),
    timeout: z
      .number()
      .positive()
      .max(SHELL_MAX_TIMEOUT_S)
      .optional()
      .describe(`Seconds before the command is killed (default ${SHELL_DEFAULT_TIMEOUT_S}).`),
    run_in_background: z.boolean().optional().describe("Start it as a background job and return at once."),
    description: z.string().max(200).optional().describe("A few words on what the command does, shown to people."),
  }),
  describe: (input) => input.description ?? `Run ${firstLine(input.command)}`,
});

export const grepCall = callShape({
  name: "grep",
  kind: "search",
  input: z.object({
    pattern: z.string().min(1).describe("Regular expression to search for."),
    path: z
      .string()
      .optional()
      .describe("File or folder to search, relative to the workspace root (default: the root)."),
    glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx".'),
    type: z
      .string()
      .regex(/^[A-Za-z0-9_+-]+$/, "must be a ripgrep file type such as js, py or rust")
      .optional()
      .describe("Only files of this ripgrep type."),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe('Default "files_with_matches".'),
    "-i": z.boolean().optional().describe("Case-insensitive."),
    "-n": z.boolean().optional().describe("Line numbers in content mode (default true)."),
    "-A": z.number().int().min(0).max(100).optional().describe("Lines of context after each match (content mode)."),
    "-B": z.number().int().min(0).max(100).optional().describe("Lines of context before each match (content mode)."),
    "-C": z.number().int().min(0).max(100).optional().describe("Lines of context around each match (content mode)."),
    head_limit: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(`Stop after this many output lines (default ${GREP_DEFAULT_LIMIT}).`),
    multiline: z.boolean().optional().describe("Patterns may span lines."),
  }),
  // The pattern as the model sent it, unescaped, so people read the regex itself.
  describe: (input) =>
    `Search for “${input.pattern}”${input.path ? ` in ${input.path}` : ""}${input.glob ? ` (${input.glob})` : ""}`,
});

export const webFetchCall = callShape({
  name: "web_fetch",
  kind: "fetch",
  input: z.object({
    url: z.string().min(1).describe("Full http:// or https:// URL."),
    prompt: z.string().optional().describe("What to extract or answer from the page."),
    raw: z.boolean().optional().describe("Return the body as text, without converting HTML."),
    download: z.boolean().optional().describe("Save the body to a file in the workspace instead of returning it."),
    output_path: z.string().optional().describe("Where to save with download (inside the workspace)."),
    timeout_ms: z
      .number()
      .int()
      .min(1_000)
      .max(WEB_FETCH_MAX_TIMEOUT_MS)
      .optional()
      .describe("How long to wait for the page, in ms (default 30000, at most 90000)."),
  }),
  describe: (input) => `${input.download ? "Download" : "Fetch"} ${hostOf(input.url)}`,
});

export const BROWSER_ACTIONS = ["navigate", "screenshot", "read", "click", "type", "console", "wait"] as const;
/** The longest the browser tool waits for one condition. */
export const BROWSER_MAX_WAIT_MS = 30_000;

export const browserCall = callShape({
  name: "browser",
  kind: "read",
  input: z.object({
    action: z.enum(BROWSER_ACTIONS).describe("What to do (see the tool's description)."),
    url: z
      .string()
      .min(1)
      .optional()
      .describe("navigate: http://localhost:<port>/path for the workspace's servers, or a full https:// URL."),
    selector: z.string().min(1).optional().describe("click, type, wait: a CSS selector of the element."),
    text: z
      .string()
      .min(1)
      .optional()
      .describe("click, type: the element's visible text or label; wait: text to wait for."),
    value: z.string().optional().describe("type: the text to type into the element."),
    submit: z.boolean().optional().describe("type: press Enter after typing."),
    format: z
      .enum(["text", "accessibility"])
      .optional()
      .describe("read: the page's text (default), or its accessibility tree."),
    until: z.enum(["text", "selector", "network_idle"]).optional().describe("wait: what to wait for."),
    timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(BROWSER_MAX_WAIT_MS)
      .optional()
      .describe("wait: at most this long (default 10000)."),
    full_page: z.boolean().optional().describe("screenshot: the whole page, not only the visible part."),
  }),
  describe: (input) => {
    const target = input.text ? `“${input.text}”` : (input.selector ?? "");
    switch (input.action) {
      case "navigate":
        return `Open ${input.url ?? "a page"}`;
      case "click":
        return `Click ${target}`;
      case "type":
        return `Type into ${target}`;
      case "read":
        return input.format === "accessibility" ? "Read the page's accessibility tree" : "Read the page's text";
      case "console":
        return "Read the page's console";
      case "wait":
        return `Wait for ${input.until === "network_idle" ? "the network to settle" : target}`;
      default:
        return "Screenshot the page";
    }
  },
});

/**
 * What people call each built-in tool (Gemini CLI's `displayName`): the name on its tool card, its
 * approval card and the settings' tool switches. The tool's `displayName` is read from here
 * (server/tools/define-tool.ts), so the server and the browser name it alike.
 */
export const TOOL_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  read_file: "Read File",
  read_many_files: "Read Files",
  ls: "List Folder",
  glob: "Find Files",
  grep: "Search Text",
  edit: "Edit",
  multi_edit: "Multi-Edit",
  write_file: "Write File",
  file_operations: "File Operations",
  shell: "Shell",
  shell_output: "Shell Output",
  shell_kill: "Stop Job",
  web_fetch: "Web Fetch",
  web_search: "Web Search",
  web_crawl: "Web Crawl",
  think: "Think",
  diagnostics: "Diagnostics",
  symbols: "Symbols",
  definition: "Go to Definition",
  references: "Find References",
  rename_symbol: "Rename Symbol",
  repo_map: "Repository Map",
  memory: "Memory",
  record_episode: "Record Episode",
  assert_fact: "Assert Fact",
  remember_preference: "Remember Preference",
  note: "Note",
  todo_write: "To-dos",
  ask_user: "Ask User",
  session_search: "Search Sessions",
  delegate: "Delegate",
  skill: "Skill",
  workflow: "Workflow",
  catalog: "Catalog",
  tool_search: "Tool Search",
  schedule_task: "Schedule Task",
  search_knowledge_base: "Knowledge Base",
  send_email: "Send Email",
  send_message: "Send Message",
  jsonl: "JSON Lines",
  markdown_table: "Markdown Table",
  archive: "Archive",
  email_parse: "Read Email",
  sql_query: "SQL Query",
  status: "Status",
  git: "Git",
  github_api: "GitHub API",
  gitlab_api: "GitLab API",
  browser: "Browser",
};

/** Tools since folded into others, named as they were in the sessions that called them. */
const RETIRED_TOOL_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  recall_user_context: "Recall User Context",
};

/** MCP tools are named `<server>__<tool>` (server/tools/mcp/mcp-tool.ts). */
const MCP_TOOL_NAME = /^([A-Za-z0-9_-]+?)__(.+)$/;

/** A tool's name for people: a built-in's from the table above, an MCP tool's as "tool (server)", else its name. */
export function toolDisplayName(toolName: string): string {
  const builtIn = TOOL_DISPLAY_NAMES[toolName] ?? RETIRED_TOOL_DISPLAY_NAMES[toolName];
  if (builtIn) return builtIn;
  const mcp = MCP_TOOL_NAME.exec(toolName);
  return mcp ? `${mcp[2]} (${mcp[1]})` : toolName;
}

/** Every entry above, for the transcript's titles and the contract's test. */
export const TOOL_CALLS: readonly CallShape<z.ZodType>[] = [
  editCall,
  multiEditCall,
  writeFileCall,
  shellCall,
  grepCall,
  webFetchCall,
  browserCall,
];

/** A call's title made from its input by its entry here; null for other tools or an input that does not parse. */
export function callTitle(toolName: string, input: unknown): string | null {
  const shape = TOOL_CALLS.find((call) => call.name === toolName);
  const parsed = shape?.input.safeParse(input);
  return shape && parsed?.success ? shape.describe(parsed.data) : null;
}

function firstLine(command: string): string {
  const line = command.trim().split("\n")[0]!;
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
