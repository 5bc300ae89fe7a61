import type { SessionEvent } from "@/lib/session-events";
import type { Tool } from "@/server/tools/define-tool";
import type { ToolSet } from "@/server/tools/registry";
import { matchTools, toolSearchTool } from "@/server/tools/tool-search";

// What the model is sent of each tool on every request. Built-in tools most turns never call
// (`onDemand`) and, past a threshold, the project's many tools (MCP, discovered) are deferred:
// the model sees their names in tool_search's description, and a tool's schema joins the model's
// tool list once a tool_search of this session matched it. "Loaded" is read from the session's
// log (the queries of its tool_search calls), so it survives restarts and needs no state of its
// own. Every tool stays callable: a call by name to one not loaded yet still runs.

export const DEFAULT_DEFER_OVER = 20;

/** Below this window (tokens) the `small-window` tools are deferred too: a 32k model spends a third of its window on schemas otherwise. */
export const SMALL_WINDOW = 100_000;

export type DeferredTools = { tools: ToolSet; modelTools(events: readonly SessionEvent[]): ToolSet };

export function deferTools(
  tools: ToolSet,
  options: { threshold?: number; contextWindow?: number } = {},
): DeferredTools {
  const threshold = options.threshold ?? DEFAULT_DEFER_OVER;
  const small = (options.contextWindow ?? Number.POSITIVE_INFINITY) < SMALL_WINDOW;
  const project = Object.values(tools).filter((t) => t.deferrable);
  const onDemand = Object.values(tools).filter(
    (t) => t.onDemand === "always" || (t.onDemand === "small-window" && small),
  );
  const deferrable = [...onDemand, ...(project.length > threshold ? project : [])];
  if (!deferrable.length) return { tools, modelTools: () => tools };
  const all: ToolSet = { ...tools, tool_search: toolSearchTool(deferrable) };
  const deferred = new Set(deferrable.map((t) => t.name));
  return {
    tools: all,
    modelTools(events) {
      const loaded = loadedTools(events, deferrable);
      const visible: ToolSet = {};
      for (const [name, tool] of Object.entries(all)) if (!deferred.has(name) || loaded.has(name)) visible[name] = tool;
      return visible;
    },
  };
}

function loadedTools(events: readonly SessionEvent[], deferrable: readonly Tool[]): Set<string> {
  const loaded = new Set<string>();
  for (const event of events) {
    if (event.type !== "tool_call" || event.payload.toolName !== "tool_search") continue;
    const input = event.payload.input as { query?: unknown; page?: unknown } | null;
    if (typeof input?.query !== "string") continue;
    const page = typeof input.page === "number" && Number.isInteger(input.page) && input.page >= 1 ? input.page : 1;
    for (const tool of matchTools(deferrable, input.query, page)) loaded.add(tool.name);
  }
  return loaded;
}
