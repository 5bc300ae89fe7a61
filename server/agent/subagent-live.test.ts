import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveItem } from "@/lib/session-events";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// A running sub-agent's activity reaches the parent session live, on the delegate call's progress:
// its step count, the tool it runs and its last lines; and a child cancelled on its own stops
// without stopping its parent, which reads that the child was cancelled.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("live sub-agents", () => {
  it("streams the child's step, current tool and last lines to the parent", async () => {
    const parent = await h.newSession({
      replies: [
        {
          toolCalls: [
            {
              id: "call_d",
              name: "delegate",
              arguments: { tasks: [{ prompt: "Task live: read the notes", tools: ["slow_read"] }] },
            },
          ],
        },
        { match: "Task live", text: "Reading. ", toolCalls: [{ name: "slow_read", arguments: { name: "notes" } }] },
        { match: "read notes", text: "The notes say hello." },
        { match: "The notes say hello", text: "Done." },
      ],
    });
    const seen: LiveItem[] = [];
    const stop = h.env.bus.subscribe(parent.id, (item) => seen.push(item));
    await h.send(parent.id, "delegate it");
    stop();
    const activity = seen.flatMap((item) =>
      item.kind === "progress" && item.toolCallId === "call_d" && item.progress.type === "subagent"
        ? [item.progress]
        : [],
    );
    expect(activity.length).toBeGreaterThan(0);
    expect(activity.some((a) => a.tool === "Read notes")).toBe(true);
    expect(activity.at(-1)).toMatchObject({ step: 2, lines: expect.stringContaining("The notes say hello.") });
  });

  it("cancels one child from its card without cancelling the parent", async () => {
    const parent = await h.newSession({
      replies: [
        {
          toolCalls: [
            { id: "call_c", name: "delegate", arguments: { tasks: [{ prompt: "Task hang: think forever" }] } },
          ],
        },
        { match: "Task hang", text: "Thinking", hang: true },
        { match: "cancelled", text: "The child was cancelled; I will do it myself." },
      ],
    });
    await h.caller.session.send({ sessionId: parent.id, text: "delegate and wait" });
    let childId = "";
    await h.waitFor(async () => {
      childId = only(await h.events(parent.id), "subagent_started")[0]?.payload.childSessionId ?? "";
      return childId !== "" && (await h.status(childId)) === "running";
    });
    await h.caller.session.cancel({ sessionId: childId });
    await h.agent.idle(parent.id);
    const events = await h.events(parent.id);
    expect(only(events, "subagent_finished")[0]!.payload).toMatchObject({ ok: false });
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe(
      "The child was cancelled; I will do it myself.",
    );
  });
});
