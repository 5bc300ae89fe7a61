import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TOOL_CALLS, TOOL_DISPLAY_NAMES, callTitle, toolDisplayName } from "@/lib/tool-call-shapes";
import { TOOL_KINDS, parseDisplay } from "@/lib/tool-display";
import { useToolSessions } from "@/server/test/tool-session";
import { BROWSER_TOOL, CORE_TOOLS, LANGUAGE_TOOLS, WEB_SEARCH_TOOL } from "./core-tools";
import { editTool } from "./edit";
import { lsTool } from "./ls";
import { readFileTool } from "./read-file";
import { okJson } from "./result";
import { thinkTool } from "./think";
import { askUserTool } from "./ask-user";
import { catalogTool } from "./catalog";
import { delegateTool } from "./delegate";
import { memoryTool } from "./memory";
import { assertFactTool, recordEpisodeTool } from "./memory-records";
import { rememberPreferenceTool } from "./remember-preference";
import { noteTool } from "./note";
import { scheduleTaskTool } from "./schedule-task";
import { searchKnowledgeBaseTool } from "./search-knowledge-base";
import { sendEmailTool } from "./send-email";
import { sessionSearchTool } from "./session-search";
import { skillTool } from "./skill";
import { todoWriteTool } from "./todo-write";
import { toolSearchTool } from "./tool-search";
import { workflowTool } from "./workflow";
import { statusTool } from "./status";
import { gitTool } from "./git";
import { forgeApiTool } from "./forge-api";
import { sendMessageTool } from "./send-message";
import { mcpTool } from "./mcp/mcp-tool";

// The contract between the tools and the browser (lib/tool-call-shapes.ts, lib/tool-display.ts): the
// tools the browser reads by name are built from its entries, and what the tools display is what
// the transcript parses, field for field.

const BUILT_IN = [...CORE_TOOLS, ...LANGUAGE_TOOLS, WEB_SEARCH_TOOL, BROWSER_TOOL];
// The tools made for a turn from its stores and services; their names and display names do not
// depend on what they are bound to, so nothing here is ever called.
const unused = {} as never;
const TURN_TOOLS = [
  askUserTool(unused),
  catalogTool(unused),
  delegateTool(unused),
  memoryTool(unused),
  recordEpisodeTool(unused),
  assertFactTool(unused),
  rememberPreferenceTool(unused),
  noteTool(unused),
  scheduleTaskTool(unused),
  searchKnowledgeBaseTool(unused),
  sendEmailTool(unused),
  sessionSearchTool(unused),
  skillTool(unused),
  todoWriteTool(unused),
  toolSearchTool([]),
  workflowTool(unused, unused),
  statusTool(unused),
  gitTool(unused, unused),
  forgeApiTool("github", unused),
  forgeApiTool("gitlab", unused),
  sendMessageTool(unused, ["team"]),
];
const session = useToolSessions();

describe("the tool calls the browser reads", () => {
  it("are the server's tools of those names: the same kind, input schema and title", () => {
    for (const call of TOOL_CALLS) {
      const tool = BUILT_IN.find((t) => t.name === call.name);
      expect(tool, `no built-in tool is named ${call.name}`).toBeDefined();
      expect(tool!.kind).toBe(call.kind);
      expect(tool!.input).toBe(call.input);
      expect(tool!.describe).toBe(call.describe);
    }
  });

  it("are titled from their input as the server titles them, the search's pattern unescaped", () => {
    const input = { pattern: "add\\(", path: "src" };
    const grep = BUILT_IN.find((t) => t.name === "grep")!;
    expect(callTitle("grep", input)).toBe(grep.describe(input));
    expect(callTitle("grep", input)).toBe("Search for “add\\(” in src");
    expect(callTitle("shell", { command: "npm test\nnpm run lint" })).toBe("Run npm test");
    expect(callTitle("shell", { command: "" })).toBeNull();
    expect(callTitle("think", { thought: "x" })).toBeNull();
  });

  it("every built-in tool has a kind the transcript knows", () => {
    for (const tool of BUILT_IN) expect(TOOL_KINDS, tool.name).toContain(tool.kind);
  });
});

describe("the tools' display names", () => {
  it("every built-in tool has one from the contract's table, and the table names no other tool", () => {
    const all = [...BUILT_IN, ...TURN_TOOLS];
    for (const tool of all) {
      expect(TOOL_DISPLAY_NAMES[tool.name], `${tool.name} has no display name`).toBeTruthy();
      expect(tool.displayName).toBe(TOOL_DISPLAY_NAMES[tool.name]);
    }
    expect(Object.keys(TOOL_DISPLAY_NAMES).sort()).toEqual([...new Set(all.map((t) => t.name))].sort());
    expect(new Set(Object.values(TOOL_DISPLAY_NAMES)).size).toBe(Object.keys(TOOL_DISPLAY_NAMES).length);
  });

  it("an MCP tool reads as its tool and server, as the browser names it", () => {
    const tool = mcpTool("github", {} as never, { name: "list_issues", inputSchema: {} }, unused);
    expect(tool.name).toBe("github__list_issues");
    expect(tool.displayName).toBe("list_issues (github)");
    expect(toolDisplayName(tool.name)).toBe(tool.displayName);
    expect(toolDisplayName("a_discovered_tool")).toBe("a_discovered_tool");
    // A tool since folded into another still reads as a name in the sessions that called it.
    expect(toolDisplayName("recall_user_context")).toBe("Recall User Context");
  });
});

describe("what the tools display", () => {
  it("parses in the browser field for field: text, markdown, table, diff, image, json and error", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "a.ts"), "const a = 1;\n");
    await writeFile(path.join(s.root, "dot.png"), Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"));
    const runs = [
      await s.run(readFileTool, { path: "a.ts" }),
      await s.run(thinkTool, { thought: "A plan." }),
      await s.run(lsTool, {}),
      await s.run(editTool, { path: "a.ts", old_string: "const a = 1;", new_string: "const a = 2;" }),
      await s.run(readFileTool, { path: "dot.png" }),
      await s.run(readFileTool, { path: "missing.ts" }),
    ];
    const displays = [...runs.map((run) => run.display), okJson({ report: ["done"] }).display];
    expect(displays.map((d) => d.kind)).toEqual(["text", "markdown", "table", "diff", "image", "error", "json"]);
    for (const display of displays) expect(parseDisplay(display)).toEqual(display);
  });
});
