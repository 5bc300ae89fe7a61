// What every request of a session carries before the conversation: the system prompt and the tool
// definitions as the provider receives them (in its schema dialect), in characters and estimated
// tokens (4 characters each), per model. Run with `npm run bench:first-request [model ...]`.
// Exits non-zero when a small model's fixed cost is over half of the reference.
//
// The tool set is a session's with every service (language servers, browser, knowledge,
// scheduler, mail, delegate), built as turn-setup.ts builds it. The reference of the same run is
// that set sent whole, every schema on every request, as before tools were deferred; the figure
// measured on main before the change is printed beside it (tool-surface.test.ts measures the same
// through the real loop).
import { DEFAULT_DEFER_OVER, deferTools } from "@/server/agent/deferred-tools";
import { createOwnTools } from "@/server/agent/own-tools";
import { EMPTY_CONTEXT } from "@/server/agent/prompts/context";
import { buildSystemPrompt } from "@/server/agent/prompts/system";
import { defaultContextWindow } from "@/server/agent/providers";
import { sessionToolSet } from "@/server/agent/session-tools";
import { toolsChars } from "@/server/agent/step";
import { catalogTool } from "@/server/tools/catalog";
import { BROWSER_TOOL, CORE_TOOLS, LANGUAGE_TOOLS } from "@/server/tools/core-tools";
import { gitTool } from "@/server/tools/git";
import { scheduleTaskTool } from "@/server/tools/schedule-task";
import { searchKnowledgeBaseTool } from "@/server/tools/search-knowledge-base";
import { sendEmailTool } from "@/server/tools/send-email";
import { statusTool } from "@/server/tools/status";
import { workflowTool } from "@/server/tools/workflow";
import type { ToolSet } from "@/server/tools/registry";

/** Measured on main at 6e3d9a8 through the real loop (a 32k OpenAI-compatible model, every service). */
const MAIN_BEFORE_CHARS = 39_174;
const TARGET = 0.5;
const MODELS = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ["openai-compatible:qwen2.5-coder-7b", "ollama:llama3.1:8b", "anthropic:claude-sonnet-4-5", "openai:gpt-5"];

// Nothing here is called: the tools are made only for their names, descriptions and schemas.
const unused = {} as never;
const tools = sessionToolSet({
  own: [
    ...createOwnTools({ memories: unused, notes: unused, todos: unused, events: { search: unused } } as never, unused),
    ...LANGUAGE_TOOLS,
    BROWSER_TOOL,
    searchKnowledgeBaseTool(unused),
    scheduleTaskTool(unused),
    sendEmailTool(unused),
    catalogTool(unused),
    workflowTool(unused, unused),
    gitTool(unused, unused),
    statusTool(unused),
  ],
  base: CORE_TOOLS,
  allowedTools: null,
});

function prompt(modelId: string, names: string[]): string {
  return buildSystemPrompt({
    projectName: "project",
    root: "/workspace",
    now: new Date(),
    sandbox: "bwrap",
    network: { policy: "allow-list", allowHosts: ["registry.npmjs.org"] },
    git: { repository: true, branch: "main", upstream: null, changes: [] },
    toolNames: names,
    approvalMode: "ask",
    runtimes: ["node 20.20.2", "npm", "python3 3.11.2"],
    sharedNetwork: true,
    modelId,
    context: EMPTY_CONTEXT,
  });
}

const fixed = (modelId: string, sent: ToolSet) => {
  const system = prompt(modelId, Object.keys(tools)).length;
  const defs = toolsChars(sent, modelId);
  return { tools: Object.keys(sent).length, defs, system, total: system + defs };
};

let failed = false;
console.log(
  `model                                window  | all tools sent: n chars   | deferred: n chars (tokens)   | ratio  | vs main (${MAIN_BEFORE_CHARS})`,
);
for (const modelId of MODELS) {
  const window = defaultContextWindow(modelId);
  const whole = fixed(modelId, tools);
  const deferred = deferTools(tools, { threshold: DEFAULT_DEFER_OVER, contextWindow: window });
  const lean = fixed(modelId, deferred.modelTools([]));
  const ratio = lean.total / whole.total;
  const small = window < 100_000;
  if (small && lean.total / MAIN_BEFORE_CHARS > TARGET) failed = true;
  console.log(
    `${modelId.padEnd(36)} ${String(window).padStart(7)} | ${String(whole.tools).padStart(2)} ${String(whole.total).padStart(6)} | ${String(lean.tools).padStart(2)} ${String(lean.total).padStart(6)} (${Math.ceil(lean.total / 4)}, ${((lean.total / 4 / window) * 100).toFixed(1)}% of window) | ${ratio.toFixed(2)} | ${(lean.total / MAIN_BEFORE_CHARS).toFixed(2)}${small ? ` (target <= ${TARGET})` : ""}`,
  );
}
if (failed) {
  console.error(`A small model's fixed cost is over ${TARGET} of main's.`);
  process.exitCode = 1;
}
