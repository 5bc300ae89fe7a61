import { describe, expect, it } from "vitest";
import { parseSessionEvent, type SessionEvent } from "@/lib/session-events";
import { foldTranscript } from "@/lib/session-transcript";

const event = (seq: number, type: string, payload: unknown): SessionEvent =>
  parseSessionEvent({ sessionId: "s", seq, type, payload, authorId: null, createdAt: new Date(0) });

describe("network cards in the transcript", () => {
  it("shows one card per refused host, and marks each card of a host allowed later with who allowed it", () => {
    const ada = { id: "u1", name: "Ada" };
    const t = foldTranscript([
      event(1, "network_denied", { turnId: "t1", toolCallId: "c1", hosts: ["registry.test", "Other.Test"] }),
      event(2, "network_denied", { turnId: "t1", toolCallId: "c2", hosts: ["registry.test"] }),
      event(3, "network_host_allowed", { host: "registry.test", by: ada }),
      event(4, "network_host_allowed", { host: "other.test", by: ada }),
      event(5, "network_denied", { turnId: "t2", toolCallId: "c3", hosts: ["registry.test"] }),
    ]);
    const cards = t.items.filter((i) => i.kind === "network");
    expect(cards.map((c) => [c.host, c.allowedBy?.name ?? null])).toEqual([
      ["registry.test", "Ada"],
      ["Other.Test", "Ada"],
      ["registry.test", "Ada"],
      // Refused again after it was allowed (the list changed since): a new question.
      ["registry.test", null],
    ]);
  });
});
