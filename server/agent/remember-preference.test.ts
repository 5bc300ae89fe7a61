import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listMemories } from "@/server/db/repositories/memories";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// A preference the person states ("I prefer …") becomes one of their own memories only with their
// consent: the prompt points the model at remember_preference, whose call always asks, and a
// declined call keeps nothing.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
}, 60_000);
afterAll(() => h?.dispose());

const preferences = async () =>
  (await listMemories(h.env.services.db, { scope: "user", userId: h.user.id })).filter((m) =>
    m.key.startsWith("preference/"),
  );

async function offer(decision: "approve" | "reject") {
  const session = await h.newSession({
    replies: [
      {
        match: "I prefer",
        toolCalls: [
          { name: "remember_preference", arguments: { preference: "Tabs over spaces", topic: "indentation" } },
        ],
      },
      { match: "", text: "Noted." },
    ],
  });
  let events = await h.send(session.id, "I prefer tabs over spaces. Fix the indentation of main.ts.");
  const system = h.model.requests.at(-1)!.messages.find((m) => m.role === "system")?.content as string;
  expect(system).toContain("## A stated preference");
  const asked = only(events, "approval_requested")[0]!;
  expect(asked.payload).toMatchObject({ toolName: "remember_preference" });
  await h.caller.approval.respond({ approvalId: asked.payload.approvalId, decision });
  await h.waitFor(async () => (await h.status(session.id)) === "idle");
  await h.agent.idle(session.id);
  events = await h.events(session.id);
  return only(events, "tool_result").at(-1)?.payload;
}

describe("remember_preference", () => {
  it("keeps nothing when the person declines", async () => {
    await offer("reject");
    expect(await preferences()).toEqual([]);
  }, 60_000);

  it("keeps the stated preference as the person's own memory when they agree", async () => {
    const result = await offer("approve");
    expect(result).toMatchObject({ toolName: "remember_preference", ok: true });
    expect(await preferences()).toMatchObject([{ key: "preference/indentation", value: "Tabs over spaces" }]);
  }, 60_000);

  it("does not point at it when the message states no preference", async () => {
    const session = await h.newSession({ replies: [{ match: "", text: "Done." }] });
    await h.send(session.id, "Fix the indentation of main.ts.");
    const system = h.model.requests.at(-1)!.messages.find((m) => m.role === "system")?.content as string;
    expect(system).not.toContain("## A stated preference");
  }, 60_000);
});
