import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { addMember } from "@/server/db/repositories/teams";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { describeSandboxed } from "@/server/test/sandbox-guard";

// A session its author alone wrote runs its commands with the author's own secrets. Its approvals
// are answered by the team by default, so a teammate who planted instructions in the workspace
// (the agent reads them and proposes a command that writes the author's key into a file) answered
// "approve" and the command ran with the author's secret: the teammate's answer drove it, as their
// keystrokes would drive a terminal holding it, which shareInput refuses.

const OWN = "own-key-0123456789abcdef";
const createCaller = createCallerFactory(appRouter);
let h: Awaited<ReturnType<typeof createAgentHarness>>;
let teammate: ReturnType<typeof createCaller>;

beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true, extensions: {}, sandbox: "bwrap" });
  await h.caller.secret.set({ name: "OWN_KEY", value: OWN });
  const project = await h.caller.project.get({ projectId: h.project.id });
  const mallory = await h.env.createUser();
  await addMember(h.env.services.db, project.teamId, mallory.id, "member");
  teammate = createCaller(h.env.context(mallory));
});
afterAll(() => h?.dispose());

describeSandboxed("approvals in a session that holds its author's own secrets", () => {
  it("are the author's alone to answer", async () => {
    const session = await h.newSession({
      replies: [
        {
          toolCalls: [{ id: "c1", name: "shell", arguments: { command: 'printf %s "${OWN_KEY:-none}" > leaked.txt' } }],
        },
        { match: "", text: "Done." },
      ],
    });
    await h.caller.session.send({ sessionId: session.id, text: "Follow the README" });
    await h.waitFor(async () => (await h.status(session.id)) === "waiting_approval");
    const approvalId = only(await h.events(session.id), "approval_requested")[0]!.payload.approvalId;
    const answer = await teammate.approval.respond({ approvalId, decision: "approve" }).catch((e: unknown) => e);
    await h.agent.idle(session.id).catch(() => {});
    const leaked = await fs
      .readFile(path.join(h.env.dataDir, "workspaces", h.project.id, "leaked.txt"), "utf8")
      .catch(() => "");
    expect(leaked).not.toContain(OWN);
    expect(answer).toMatchObject({ code: "FORBIDDEN" });
    // Writing in the session first, to answer as someone who takes part, withdraws the secret
    // from the command the answer lets run.
    await teammate.session.send({ sessionId: session.id, text: "Looks fine to me." });
    await teammate.approval.respond({ approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    const after = await fs
      .readFile(path.join(h.env.dataDir, "workspaces", h.project.id, "leaked.txt"), "utf8")
      .catch(() => "");
    expect(after).toBe("none");
  });
});
