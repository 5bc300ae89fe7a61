import type { Tool } from "./define-tool";

/** Every built-in tool, in the order the model sees them. */
export const CORE_TOOLS: readonly Tool[] = [];

/** Registered only when a search backend is configured. */
export const WEB_SEARCH_TOOL: Tool | undefined = undefined;
