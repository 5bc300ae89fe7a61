import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness } from "@/server/test/agent-harness";
import { listSessionIdsOfProject } from "@/server/db/repositories/sessions";

// Deleting a project through the API while its agent works: the turn stops, and neither its rows
// nor its workspace nor its checkpoint store (a copy of every version of its files) stay behind.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
});
afterAll(() => h.dispose());

describe("project deletion", () => {
  it("stops the project's running turn and removes its sessions, workspace and checkpoint store", async () => {
    const edited = await h.newSession({
      replies: [
        {
          toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "kept in a checkpoint\n" } }],
        },
        { match: "wrote notes.txt", text: "Written." },
        { match: "Keep talking", text: "and on ", delayMs: 20, hang: true },
      ],
    });
    await h.send(edited.id, "Write the notes");
    const store = path.join(h.env.dataDir, "checkpoints", h.project.id);
    const workspace = h.env.services.files.pathOf(h.project.id);
    expect(existsSync(store)).toBe(true);

    await h.caller.session.send({ sessionId: edited.id, text: "Keep talking" });
    await h.waitFor(() => h.agent.isRunning(edited.id));

    await h.caller.project.delete({ projectId: h.project.id });
    expect(h.agent.isRunning(edited.id)).toBe(false);
    expect(await listSessionIdsOfProject(h.env.services.db, h.project.id)).toEqual([]);
    expect(existsSync(workspace)).toBe(false);
    expect(existsSync(store)).toBe(false);
    await expect(h.caller.session.get({ sessionId: edited.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
