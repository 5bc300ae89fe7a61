import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CORE_TOOLS } from "./core-tools";
import { defineTool, type Tool } from "./define-tool";
import { buildToolSet, describeCall, runTool, toolForcesApproval } from "./registry";
import { ToolFailure, ok } from "./result";
import { useToolSessions } from "@/server/test/tool-session";
import { thinkTool } from "./think";

const session = useToolSessions();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function timedTool(name: string, kind: Tool["kind"], log: string[]): Tool {
  return defineTool({
    name,
    kind,
    description: name,
    input: z.object({ id: z.string() }),
    describe: (input) => `${name} ${input.id}`,
    async execute(input) {
      log.push(`start ${input.id}`);
      await sleep(50);
      log.push(`end ${input.id}`);
      return ok(input.id);
    },
  });
}

describe("buildToolSet", () => {
  const names = (set: Record<string, Tool>) => Object.keys(set);

  it("has every core tool, web_search only with a backend", () => {
    const set = buildToolSet();
    expect(names(set)).toEqual(CORE_TOOLS.map((t) => t.name));
    expect(names(set)).toEqual(
      expect.arrayContaining([
        "read_file",
        "edit",
        "multi_edit",
        "write_file",
        "glob",
        "grep",
        "ls",
        "shell",
        "web_fetch",
        "read_many_files",
        "think",
      ]),
    );
    expect(names(set)).not.toContain("web_search");
    expect(names(buildToolSet({ webSearch: { kind: "searxng", url: "http://search.local" } }))).toContain("web_search");
  });

  it("applies the project's coreTools, excludeTools, and adds extra tools without clobbering", () => {
    expect(names(buildToolSet({ coreTools: ["read_file", "grep"] }))).toEqual(["read_file", "grep"]);
    expect(names(buildToolSet({ excludeTools: ["shell", "web_fetch"] }))).not.toContain("shell");
    const extra = { ...thinkTool, name: "mcp__docs__search" };
    const clash = { ...thinkTool, description: "impostor" };
    const set = buildToolSet({ coreTools: ["read_file"], extraTools: [extra, clash], excludeTools: [] });
    expect(names(set)).toEqual(["read_file", "mcp__docs__search", "think"]);
    expect(buildToolSet({ extraTools: [clash] }).think!.description).not.toBe("impostor");
    expect(names(buildToolSet({ extraTools: [extra], excludeTools: ["mcp__docs__search"] }))).not.toContain(
      "mcp__docs__search",
    );
  });

  it("gives every core tool a one-line description of a call", () => {
    const samples: Record<string, unknown> = {
      read_file: { path: "src/app.ts" },
      edit: { path: "src/app.ts", old_string: "a", new_string: "b" },
      shell: { command: "npm test" },
      web_fetch: { url: "https://example.com/page" },
      glob: { pattern: "**/*.ts" },
    };
    const set = buildToolSet();
    expect(describeCall(set.read_file!, samples.read_file)).toBe("Read src/app.ts");
    expect(describeCall(set.edit!, samples.edit)).toBe("Edit src/app.ts");
    expect(describeCall(set.shell!, samples.shell)).toBe("Run npm test");
    expect(describeCall(set.web_fetch!, samples.web_fetch)).toBe("Fetch example.com");
    expect(describeCall(set.glob!, { bad: 1 })).toBe("glob");
  });
});

describe("runTool", () => {
  it("validates input first and names the bad field", async () => {
    const s = await session();
    let ran = false;
    const tool = defineTool({
      name: "probe",
      kind: "read",
      description: "",
      describe: () => "probe",
      input: z.object({ path: z.string(), limit: z.number().int().optional() }),
      async execute() {
        ran = true;
        return ok("ran");
      },
    });
    const run = await runTool(tool, { path: 3, limit: "x" }, s.ctx);
    expect(ran).toBe(false);
    expect(run.error?.code).toBe("INVALID_INPUT");
    expect(run.llm).toMatch(/path: .*; limit: /);
    expect(run.metrics).toMatchObject({ tool: "probe", ok: false, errorCode: "INVALID_INPUT" });
  });

  it("turns thrown failures into results with codes, and unexpected errors into INTERNAL", async () => {
    const s = await session();
    const failing = (error: unknown) =>
      defineTool({
        name: "f",
        kind: "read",
        description: "",
        describe: () => "f",
        input: z.object({}),
        execute: async () => Promise.reject(error),
      });
    expect((await runTool(failing(new ToolFailure("NO_MATCH", "nope")), {}, s.ctx)).llm).toBe("Error [NO_MATCH]: nope");
    expect((await runTool(failing(new TypeError("boom")), {}, s.ctx)).error?.code).toBe("INTERNAL");
  });

  it("cuts long output once, saving the whole of it, and records metrics", async () => {
    const s = await session();
    const big = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join("\n");
    const tool = defineTool({
      name: "big",
      kind: "read",
      description: "",
      describe: () => "big",
      input: z.object({}),
      execute: async () => ok(big),
    });
    const run = await runTool(tool, {}, s.ctx);
    const text = run.llm as string;
    expect(text).toContain("row 2500\n[Output cut: showing the first 2500 of 5000 lines.");
    expect(text).not.toContain("row 2501");
    const saved = text.match(/complete output is in '([^']+)'/)![1]!;
    expect(await readFile(path.join(s.root, saved), "utf8")).toBe(big);
    expect(await readFile(path.join(s.root, ".tandem/.gitignore"), "utf8")).toBe("*\n");
    expect(run.metrics.truncated).toBe(true);
    expect(run.metrics.resultBytes).toBe(Buffer.byteLength(text));
    expect(run.metrics.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("runs read-only tools in parallel and state-changing ones one at a time per workspace", async () => {
    const s = await session();
    const log: string[] = [];
    const reader = timedTool("reader", "read", log);
    const writer = timedTool("writer", "edit", log);
    await Promise.all([runTool(reader, { id: "r1" }, s.ctx), runTool(reader, { id: "r2" }, s.ctx)]);
    expect(log.slice(0, 2)).toEqual(["start r1", "start r2"]);
    log.length = 0;
    await Promise.all([runTool(writer, { id: "w1" }, s.ctx), runTool(writer, { id: "w2" }, s.ctx)]);
    expect(log).toEqual(["start w1", "end w1", "start w2", "end w2"]);
  });

  it("does not start after an abort", async () => {
    const s = await session();
    const controller = new AbortController();
    controller.abort();
    const run = await runTool(thinkTool, { thought: "x" }, { ...s.ctx, signal: controller.signal });
    expect(run.error?.code).toBe("ABORTED");
  });

  it("lets a tool force approval for some inputs", async () => {
    const s = await session();
    const tool = defineTool({
      name: "t",
      kind: "execute",
      description: "",
      describe: () => "t",
      input: z.object({ danger: z.boolean() }),
      needsApproval: (input) => input.danger,
      execute: async () => ok(""),
    });
    expect(await toolForcesApproval(tool, { danger: true }, s.ctx)).toBe(true);
    expect(await toolForcesApproval(tool, { danger: false }, s.ctx)).toBe(false);
    expect(await toolForcesApproval(thinkTool, { thought: "x" }, s.ctx)).toBe(false);
  });

  it("records a thought without side effects", async () => {
    const s = await session();
    const run = await runTool(thinkTool, { thought: "Plan: read, then edit." }, s.ctx);
    expect(run.llm).toBe("Thought recorded.");
    expect(run.display).toEqual({ kind: "markdown", text: "Plan: read, then edit." });
  });
});
