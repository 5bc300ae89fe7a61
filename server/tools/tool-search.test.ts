import { z } from "zod";
import { describe, expect, it } from "vitest";
import { deferTools } from "@/server/agent/deferred-tools";
import type { SessionEvent } from "@/lib/session-events";
import { defineTool } from "./define-tool";
import { ok } from "./result";
import { useToolSessions } from "@/server/test/tool-session";
import { PAGE_SIZE, toolSearchTool } from "./tool-search";

// tool_search pages its matches instead of stopping at a fixed number, and a page the model asked
// for is what gets loaded into its tool list.

const session = useToolSessions();
const tools = Array.from({ length: 20 }, (_, i) =>
  defineTool({
    name: `docs__lookup_${String(i).padStart(2, "0")}`,
    kind: "read",
    description: `Look up docs, part ${i}.`,
    input: z.object({}),
    deferrable: true,
    describe: () => "lookup",
    execute: async () => ok("x"),
  }),
);

describe("tool_search", () => {
  it("returns matches a page at a time and says how to get the next page", async () => {
    const s = await session();
    const search = toolSearchTool(tools);
    const first = String((await s.run(search, { query: "lookup" })).llm);
    expect(first).toContain(`Loaded ${PAGE_SIZE} tools`);
    expect(first).toContain("Page 1 of 3 (20 matches): call tool_search with page: 2 for more.");
    const third = String((await s.run(search, { query: "lookup", page: 3 })).llm);
    expect(third).toContain("Loaded 4 tools");
    expect(third).toContain("docs__lookup_19");
    expect(third).not.toContain("for more");
    expect(String((await s.run(search, { query: "lookup", page: 4 })).llm)).toBe(
      'Only 3 pages of matches for "lookup".',
    );
  });

  it("loads the tools of the pages the model asked for", () => {
    const deferred = deferTools(Object.fromEntries(tools.map((t) => [t.name, t])), { threshold: 5 });
    const call = (page?: number) =>
      ({
        type: "tool_call",
        payload: { toolName: "tool_search", input: { query: "lookup", ...(page ? { page } : {}) } },
      }) as unknown as SessionEvent;
    const visible = (events: SessionEvent[]) =>
      Object.keys(deferred.modelTools(events)).filter((n) => n.startsWith("docs__"));
    expect(visible([])).toEqual([]);
    expect(visible([call()])).toHaveLength(PAGE_SIZE);
    expect(visible([call(), call(2)])).toHaveLength(2 * PAGE_SIZE);
    expect(visible([call(3)])).toEqual(["docs__lookup_16", "docs__lookup_17", "docs__lookup_18", "docs__lookup_19"]);
  });
});
