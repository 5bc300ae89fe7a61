import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setModelSetting } from "@/server/db/repositories/agent-settings";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// What the model is shown, against the scripted model with the real file tools (issue 17,
// defects 1, 3 and 5).

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true });
});
afterAll(() => h.dispose());

const systemOf = (request: (typeof h.model.requests)[number]) =>
  String(request.messages.find((m) => m.role === "system")?.content ?? "");

describe("what the model sees", () => {
  it("re-reading a file after the context was compacted returns its content again, not 'not repeated here'", async () => {
    const files = await h.env.services.files.open(h.project.id);
    await files.create("notes.txt", "the secret ingredient is cardamom\n");
    const long = (word: string) => `${word} `.repeat(20_000); // ~30k tokens by the 4-characters estimate
    await setModelSetting(h.env.services.db, {
      model: "openai-compatible:scripted",
      inputPerMTok: null,
      outputPerMTok: null,
      cachedInputPerMTok: null,
      contextWindow: 70_000,
    });
    const session = await h.newSession({
      replies: [
        { match: "read the notes", toolCalls: [{ id: "read_1", name: "read_file", arguments: { path: "notes.txt" } }] },
        { match: "cardamom", tokens: [long("alpha")] },
        { match: "second question", tokens: [long("beta")] },
        {
          match: "Summarise the conversation",
          text: "## Goal\nThe user wants the secret ingredient.\n## Next step\nRead notes.txt again.",
        },
        {
          match: "read them again",
          toolCalls: [{ id: "read_2", name: "read_file", arguments: { path: "notes.txt" } }],
        },
        { match: "cardamom", text: "It is cardamom." },
      ],
    });
    await h.send(session.id, "read the notes");
    await h.send(session.id, "second question");
    const events = await h.send(session.id, "read them again");
    expect(only(events, "compaction")).toHaveLength(1);
    const second = only(events, "tool_result").find((e) => e.payload.toolCallId === "read_2")!;
    expect(second.payload.llm).toContain("the secret ingredient is cardamom");
    expect(second.payload.llm).not.toMatch(/not repeated here/);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("It is cardamom.");
    await setModelSetting(h.env.services.db, {
      model: "openai-compatible:scripted",
      inputPerMTok: null,
      outputPerMTok: null,
      cachedInputPerMTok: null,
      contextWindow: 1_000_000,
    });
  });

  it("tells the model who wrote each message in a shared session", async () => {
    // Grace is in the project's team: only its members' messages start turns (turn-authority.ts).
    const grace = await h.env.createUser();
    const { teamId } = await h.env.services.db.project.findUniqueOrThrow({ where: { id: h.project.id } });
    await h.env.services.db.teamMember.create({ data: { teamId, userId: grace.id, role: "member" } });
    const session = await h.newSession({
      replies: [
        { match: "rename the module", text: "Noted." },
        { match: "keep the old name", text: "Grace and User 1 disagree; asking." },
      ],
    });
    await h.send(session.id, "Please rename the module");
    await h.agent.send({
      sessionId: session.id,
      text: "No, keep the old name",
      user: { id: grace.id, name: "Grace Hopper" },
    });
    await h.agent.idle(session.id);
    const users = h.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "user")
      .map((m) => String(m.content));
    expect(users).toEqual([`[${h.user.name}] Please rename the module`, "[Grace Hopper] No, keep the old name"]);
    expect(systemOf(h.model.requests.at(-1)!)).toContain("starts with their name in brackets");
  });

  it("says '(first N entries)' only when the listing was cut, and read_file promises images only to models that can view them", async () => {
    const files = await h.env.services.files.open(h.project.id);
    await files.mkdir(".tandem").catch(() => {});
    await files.create(".tandem/agent-state.json", "{}").catch(() => {});
    const session = await h.newSession({ replies: [{ text: "ok" }] });
    await h.send(session.id, "hello");
    const request = h.model.requests.at(-1)!;
    const system = systemOf(request);
    expect(system).toContain("## Top level of the workspace\n");
    expect(system).not.toMatch(/first \d+ (of \d+ )?entries/);
    expect(system).toContain("notes.txt");
    const readFile = request.toolDescriptions.read_file!;
    expect(readFile).toContain("come back as images when the model can view them");
    expect(readFile).toContain("leave it out of old_string");
  });

  it("a sub-folder's AGENTS.md reaches the model with the first read in that folder, once", async () => {
    const files = await h.env.services.files.open(h.project.id);
    await files.create("pkg/AGENTS.md", "In pkg/, indent with tabs.\n", { createParents: true });
    await files.create("pkg/lib/a.ts", "export const a = 1;\n", { createParents: true });
    await files.create("pkg/b.ts", "export const b = 2;\n");
    const session = await h.newSession({
      replies: [
        {
          match: "look at pkg",
          toolCalls: [{ id: "nested_1", name: "read_file", arguments: { path: "pkg/lib/a.ts" } }],
        },
        {
          match: "export const a",
          toolCalls: [{ id: "nested_2", name: "read_file", arguments: { path: "./pkg/b.ts" } }],
        },
        { match: "export const b", text: "Read both." },
      ],
    });
    const events = await h.send(session.id, "look at pkg");
    const [first, second] = only(events, "tool_result").map((e) => e.payload.llm);
    expect(first).toContain("export const a = 1;");
    expect(first).toContain(
      "[Instructions from pkg/AGENTS.md; they apply to files under pkg/ and take precedence there:]\n\nIn pkg/, indent with tabs.",
    );
    expect(second).toContain("export const b = 2;");
    expect(second).not.toContain("indent with tabs");
  });

  it("an edit's result shows the changed lines with context, numbered as read_file numbers them", async () => {
    const files = await h.env.services.files.open(h.project.id);
    const body = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    await files.create("numbers.txt", `${body}\n`);
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "read_n", name: "read_file", arguments: { path: "numbers.txt" } }] },
        {
          toolCalls: [
            {
              id: "edit_n",
              name: "edit",
              arguments: { path: "numbers.txt", old_string: "line 10", new_string: "ten" },
            },
          ],
        },
        {
          toolCalls: [
            {
              id: "multi_n",
              name: "multi_edit",
              arguments: { edits: [{ path: "numbers.txt", old_string: "line 15", new_string: "fifteen" }] },
            },
          ],
        },
        { text: "Done." },
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    const events = await h.send(session.id, "edit line ten");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    const result = (id: string) => only(events, "tool_result").find((e) => e.payload.toolCallId === id)!.payload.llm;
    const read = result("read_n").split("\n");
    const lineOf = (n: number) => read.find((l) => l.startsWith(`${String(n).padStart(6)}\t`))!;
    expect(result("edit_n")).toContain(
      [lineOf(7), lineOf(8), lineOf(9), "    10\tten", lineOf(11), lineOf(12), lineOf(13)].join("\n"),
    );
    expect(result("edit_n")).not.toContain(lineOf(6));
    expect(result("multi_n")).toContain(["    14\tline 14", "    15\tfifteen", "    16\tline 16"].join("\n"));
  });

  it("after a restore that rewinds the conversation, reading an unchanged file shows its content again", async () => {
    const files = await h.env.services.files.open(h.project.id);
    await files.create("kept.txt", "the password hint is teal\n");
    const session = await h.newSession({
      replies: [
        { match: "first", toolCalls: [{ id: "read_k1", name: "read_file", arguments: { path: "kept.txt" } }] },
        {
          match: "teal",
          toolCalls: [{ id: "write_c", name: "write_file", arguments: { path: "changed.txt", content: "new\n" } }],
        },
        { match: "changed.txt", text: "Wrote it." },
        { match: "again", toolCalls: [{ id: "read_k2", name: "read_file", arguments: { path: "kept.txt" } }] },
        { match: "teal", text: "The hint is teal." },
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    let events = await h.send(session.id, "first");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    const checkpoint = only(events, "checkpoint")[0]!.payload.checkpointId;
    await h.caller.checkpoint.restore({ sessionId: session.id, checkpointId: checkpoint, rewindConversation: true });
    events = await h.send(session.id, "read it again");
    const second = only(events, "tool_result").find((e) => e.payload.toolCallId === "read_k2")!;
    expect(second.payload.llm).toContain("the password hint is teal");
    expect(second.payload.llm).not.toMatch(/not repeated here/);
  });

  it("cuts a tool's result to what the model's window affords", async () => {
    await setModelSetting(h.env.services.db, {
      model: "openai-compatible:scripted",
      inputPerMTok: null,
      outputPerMTok: null,
      cachedInputPerMTok: null,
      contextWindow: 16_000, // 15% of it: 9,600 characters for one result
    });
    const words = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join("\n");
    const session = await h.newSession({
      replies: [{ toolCalls: [{ id: "big", name: "echo", arguments: { text: words } }] }, { text: "Read it." }],
    });
    try {
      const events = await h.send(session.id, "echo a lot");
      const llm = only(events, "tool_result")[0]!.payload.llm;
      expect(llm.length).toBeLessThan(10_000);
      expect(llm).toMatch(/\[Output cut: showing the first \d+ of 3000 lines\. The complete output is in '/);
    } finally {
      await setModelSetting(h.env.services.db, {
        model: "openai-compatible:scripted",
        inputPerMTok: null,
        outputPerMTok: null,
        cachedInputPerMTok: null,
        contextWindow: 1_000_000,
      });
    }
  });
});
