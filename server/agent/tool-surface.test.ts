import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// What every request costs before the conversation starts (the system prompt and the tool
// definitions), as the scripted model receives it, for a small OpenAI-compatible model and for
// one with a frontier-sized window; and the tools that wait behind tool_search still work.

/**
 * The first request of a session on main before the tool surface was made lean (commit 6e3d9a8,
 * the same harness: the built-in tools, language servers, knowledge and scheduler, a 32k model):
 * 37 tools in 33,935 characters and a system prompt of 5,239.
 */
const BEFORE_CHARS = 39_174;

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: "only", extensions: {}, language: true });
}, 60_000);
afterAll(() => h?.dispose());

const fixedCost = (request: { toolsChars: number; systemChars: number }) => request.toolsChars + request.systemChars;
const setWindow = (contextWindow: number | null) =>
  h.caller.model.setSettings({
    model: "openai-compatible:scripted",
    inputPerMTok: null,
    outputPerMTok: null,
    contextWindow,
  });

describe("the tool surface", () => {
  it("a small model's first request costs at most half of what it did; rarely used tools wait behind tool_search", async () => {
    await setWindow(null);
    const session = await h.newSession({ replies: [{ text: "Hello." }] });
    await h.send(session.id, "hi");
    const first = h.model.requests[0]!;
    const ratio = fixedCost(first) / BEFORE_CHARS;
    console.log(
      `first request, 32k window: ${first.tools.length} tools ${first.toolsChars} + system ${first.systemChars} = ${fixedCost(first)} characters (~${Math.ceil(fixedCost(first) / 4)} tokens), ${ratio.toFixed(2)} of before`,
    );
    expect(ratio).toBeLessThanOrEqual(0.5);
    expect(first.tools).toEqual(
      expect.arrayContaining(["read_file", "grep", "edit", "shell", "todo_write", "diagnostics", "tool_search"]),
    );
    for (const deferred of [
      "jsonl",
      "archive",
      "browser",
      "repo_map",
      "status",
      "git",
      "note",
      "multi_edit",
      "delegate",
    ])
      expect(first.tools).not.toContain(deferred);
    // The recall tools are one: memory searches the user's memories beside the project's.
    expect(first.tools).not.toContain("recall_user_context");
    expect(first.toolDescriptions.tool_search).toContain("jsonl");
    // skill is offered only to a project that has skills.
    expect(first.tools).not.toContain("skill");
    // A small open model reads its family's lines.
    expect(String(first.messages[0]!.content)).toContain("Call only the tools you were given");
  });

  it("a deferred built-in tool is loaded by tool_search and then called", async () => {
    await setWindow(null);
    const files = await h.env.services.files.open(h.project.id);
    await files.create("events.jsonl", '{"user":"ada"}\n{"user":"bob"}\n{"user":"ada"}\n');
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "jsonl" } }] },
        {
          toolCalls: [
            {
              id: "j1",
              name: "jsonl",
              arguments: { path: "events.jsonl", filter: [{ field: "user", op: "==", value: "ada" }], count: true },
            },
          ],
        },
        { text: "Two of ada." },
      ],
    });
    const events = await h.send(session.id, "how many events are ada's?");
    const [search, jsonl] = only(events, "tool_result").map((e) => e.payload);
    expect(search).toMatchObject({ toolName: "tool_search", ok: true });
    expect(jsonl).toMatchObject({ toolName: "jsonl", ok: true });
    expect(String(jsonl!.llm)).toContain("2");
    const [before, after] = h.model.requests;
    expect(before!.tools).not.toContain("jsonl");
    expect(after!.tools).toContain("jsonl");
  });

  it("a deferred tool called by name, without tool_search, runs and is shown by its own title", async () => {
    await setWindow(null);
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "t1", name: "think", arguments: { thought: "Plan the survey first" } }] },
        { text: "Planned." },
      ],
    });
    const events = await h.send(session.id, "plan it");
    expect(h.model.requests.at(-2)!.tools).not.toContain("think");
    const [call] = only(events, "tool_call").map((e) => e.payload);
    // The card reads these: the tool's own title and kind, not its bare name and "unknown".
    expect(call).toMatchObject({ toolName: "think", title: "Think: Plan the survey first", kind: "think" });
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({ toolName: "think", ok: true });
  });

  it("a model with a large window gets the tools a small one loads on demand", async () => {
    await setWindow(200_000);
    const session = await h.newSession({ replies: [{ text: "Hello." }] });
    await h.send(session.id, "hi");
    const first = h.model.requests[0]!;
    console.log(
      `first request, 200k window: ${first.tools.length} tools ${first.toolsChars} + system ${first.systemChars} = ${fixedCost(first)} characters, ${(fixedCost(first) / BEFORE_CHARS).toFixed(2)} of before`,
    );
    expect(first.tools).toEqual(expect.arrayContaining(["multi_edit", "read_many_files", "web_fetch", "delegate"]));
    expect(first.tools).not.toContain("jsonl");
    expect(fixedCost(first)).toBeLessThan(BEFORE_CHARS * 0.7);
    await setWindow(null);
  });

  it("a sub-agent gets the read and search tools delegate promises: language tools, the repository map, knowledge search", async () => {
    await setWindow(null);
    const parent = await h.newSession({
      replies: [
        { toolCalls: [{ name: "delegate", arguments: { task: "Task map: outline the project" } }] },
        { match: "Task map", text: "An outline." },
        { match: "An outline", text: "Done." },
      ],
    });
    const events = await h.send(parent.id, "Outline the project");
    const started = only(events, "subagent_started")[0]!.payload;
    expect(started.tools).toEqual(
      expect.arrayContaining([
        "read_file",
        "grep",
        "diagnostics",
        "symbols",
        "references",
        "repo_map",
        "search_knowledge_base",
      ]),
    );
    for (const withheld of ["edit", "shell", "delegate", "ask_user"]) expect(started.tools).not.toContain(withheld);
  });
});
