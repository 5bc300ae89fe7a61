import type { Tool } from "./define-tool";
import { definitionTool } from "./definition";
import { diagnosticsTool } from "./diagnostics";
import { editTool } from "./edit";
import { referencesTool } from "./references";
import { renameSymbolTool } from "./rename-symbol";
import { repoMapTool } from "./repo-map";
import { symbolsTool } from "./symbols";
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { archiveTool } from "./archive";
import { browserTool } from "./browser";
import { emailParseTool } from "./email-parse";
import { jsonlTool } from "./jsonl";
import { markdownTableTool } from "./markdown-table";
import { lsTool } from "./ls";
import { sqlQueryTool } from "./sql-query";
import { multiEditTool } from "./multi-edit";
import { fileOperationsTool } from "./file-operations";
import { readFileTool } from "./read-file";
import { readManyFilesTool } from "./read-many-files";
import { shellKillTool, shellOutputTool, shellTool } from "./shell";
import { thinkTool } from "./think";
import { webCrawlTool } from "./web-crawl";
import { webFetchTool } from "./web-fetch";
import { webSearchTool } from "./web-search";
import { writeFileTool } from "./write-file";

/** Every built-in tool, in the order the model sees them. */
export const CORE_TOOLS: readonly Tool[] = [
  readFileTool,
  readManyFilesTool,
  lsTool,
  globTool,
  grepTool,
  editTool,
  multiEditTool,
  writeFileTool,
  fileOperationsTool,
  shellTool,
  shellOutputTool,
  shellKillTool,
  webFetchTool,
  webCrawlTool,
  jsonlTool,
  markdownTableTool,
  archiveTool,
  emailParseTool,
  sqlQueryTool,
  thinkTool,
];

/** Registered when the project has language servers (server/language). */
export const LANGUAGE_TOOLS: readonly Tool[] = [
  diagnosticsTool,
  symbolsTool,
  definitionTool,
  referencesTool,
  renameSymbolTool,
  repoMapTool,
];

/** Registered only when a search backend is configured. */
export const WEB_SEARCH_TOOL: Tool = webSearchTool;

/** Registered only when the server has a Chromium for the agent (server/tools/agent-browser). */
export const BROWSER_TOOL: Tool = browserTool;

/** The built-in tools a project admin may turn off (a tool that is off is never advertised to the model). */
export const SWITCHABLE_TOOLS: readonly Tool[] = [...CORE_TOOLS, WEB_SEARCH_TOOL, BROWSER_TOOL];
export const SWITCHABLE_TOOL_NAMES = SWITCHABLE_TOOLS.map((t) => t.name) as [string, ...string[]];

/** The stored `excludeTools` setting, read defensively: only names of switchable tools count. */
export function switchedOffTools(stored: unknown): string[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter((name): name is string => typeof name === "string" && SWITCHABLE_TOOL_NAMES.includes(name));
}
